package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.k8s.yaml.Yaml;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code weft k8s render --target runtime|workflow}, presets and the OptimizationJob, through the command line. */
class PipelineCliTest {
  static final String SPEC = TestSpecs.path("gpt-tiny.yaml").toString();

  static List<String> kinds(String stream) {
    List<String> out = new ArrayList<>();
    for (String doc : stream.split("(?m)^---\\n")) if (!doc.isBlank()) out.add(Yaml.read(doc).path("kind").asText());
    return out;
  }

  @Test
  void presetsRenderWithoutASpec() {
    Cli one = Cli.run("render", "--target", "runtime", "--preset", "weft-qwen2.5-1.5b", "--set", "deployment.image=registry.local/weft:1");
    assertThat(one.code()).as(one.err()).isZero();
    assertThat(kinds(one.out())).containsExactly("ClusterTrainingRuntime", "TrainingRuntime");
    assertThat(one.out()).contains("name: weft-qwen2.5-1.5b", "image: registry.local/weft:1");
    Cli all = Cli.run("render", "--target", "runtime", "--preset", "all");
    assertThat(all.code()).as(all.err()).isZero();
    assertThat(kinds(all.out())).containsExactly("ClusterTrainingRuntime", "ClusterTrainingRuntime", "ClusterTrainingRuntime");
  }

  @Test
  void aSpecRendersAsARuntimeAWorkflowOrAnOptimizationJob(@TempDir Path dir) throws Exception {
    Cli runtime = Cli.run("render", SPEC, "--target", "runtime");
    assertThat(runtime.code()).as(runtime.err()).isZero();
    assertThat(kinds(runtime.out())).containsExactly("ClusterTrainingRuntime", "TrainingRuntime");
    Cli workflow = Cli.run("render", SPEC, "--target", "workflow", "--export-s3", "models/tiny", "-o", dir.toString());
    assertThat(workflow.code()).as(workflow.err()).isZero();
    JsonNode wf = Yaml.read(Files.readString(dir.resolve("workflow-gpt-tiny.yaml")));
    assertThat(wf.path("spec").path("templates").toString()).contains("models/tiny");
    assertThat(dir.resolve("workflowtemplate-gpt-tiny.yaml")).exists();
    Cli opt = Cli.run("render", SPEC, "--target", "runtime", "--search", "train.lr=1e-4:1e-3", "--trials", "4");
    assertThat(opt.code()).as(opt.err()).isZero();
    assertThat(kinds(opt.out())).containsExactly("TrainingRuntime", "OptimizationJob");
  }

  @Test
  void mistakesAreOneLineNamingTheOption() {
    Cli noSpec = Cli.run("render", "--target", "workflow");
    assertThat(noSpec.code()).isEqualTo(2);
    assertThat(noSpec.err().strip()).startsWith("error: SPEC:").doesNotContain("\n");
    Cli badTarget = Cli.run("render", SPEC, "--target", "argo");
    assertThat(badTarget.code()).isEqualTo(2);
    assertThat(badTarget.err().strip()).contains("--target", "runtime", "workflow").doesNotContain("\n");
    Cli badPreset = Cli.run("render", "--target", "runtime", "--preset", "torchtune-llama3.2-1b");
    assertThat(badPreset.code()).isEqualTo(2);
    assertThat(badPreset.err().strip()).startsWith("error: --preset:").contains("weft-llama3.2-1b");
    Cli chatOnly = Cli.run("render", SPEC, "--target", "runtime", "--chat-data");
    assertThat(chatOnly.code()).isEqualTo(2);
    assertThat(chatOnly.err().strip()).startsWith("error: --chat-data:");
  }
}
