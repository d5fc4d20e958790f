package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.cli.CliExtension;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.yaml.Yaml;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ServiceLoader;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CliTest {
  static final String SPEC = TestSpecs.path("gpt-tiny.yaml").toString();

  @Test
  void registeredAsTheK8sCliExtension() {
    assertThat(ServiceLoader.load(CliExtension.class).stream().map(p -> p.get().name())).contains("k8s");
    CliExtension k8s = ServiceLoader.load(CliExtension.class).stream().map(ServiceLoader.Provider::get)
        .filter(e -> e.name().equals("k8s")).findFirst().orElseThrow();
    assertThat(new CommandLine(k8s.command()).getSubcommands()).containsOnlyKeys("render", "apply", "status", "logs", "delete");
  }

  @ParameterizedTest
  @EnumSource(Target.class)
  void renderWritesOneFilePerObjectAndAKustomization(Target t, @TempDir Path dir) throws Exception {
    Cli r = Cli.run("render", SPEC, "--target", t.cliName(), "-o", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode k = Yaml.read(Files.readString(dir.resolve("kustomization.yaml")));
    assertThat(k.path("kind").asText()).isEqualTo("Kustomization");
    assertThat(k.path("resources").size()).isGreaterThanOrEqualTo(4);
    for (JsonNode f : k.path("resources")) {
      JsonNode o = Yaml.read(Files.readString(dir.resolve(f.asText())));
      assertThat(o.path("metadata").path("namespace").asText()).isEqualTo("default");
    }
    assertThat(r.out().lines()).hasSize(k.path("resources").size() + 1);
  }

  /** The repository's reference spec, as the "done when" renders it. */
  static final String SAMPLE = Path.of(System.getProperty("weft.samples.dir", "../samples/configs"), "gpt-tiny.yaml").toString();

  @ParameterizedTest
  @EnumSource(Target.class)
  void theRepositorySampleRendersForEveryTarget(Target t, @TempDir Path dir) {
    Cli r = Cli.run("render", SAMPLE, "--target", t.cliName(), "-o", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(dir.resolve("kustomization.yaml")).exists();
  }

  @Test
  void gpusWithACpuDeviceAreOneWarningLineAndNoRequest() {
    Cli r = Cli.run("render", SPEC, "--target", "job", "--set", "deployment.gpusPerNode=1");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err().strip()).isEqualTo("warning: deployment.gpusPerNode: 1 GPU(s) per node are not requested because device is cpu;"
        + " set device: cuda (or auto) to train on them, or gpusPerNode: 0");
    assertThat(r.out()).doesNotContain("nvidia.com/gpu:").contains("# No PodDisruptionBudget:", "terminationGracePeriodSeconds: 120");
  }

  @Test
  void renderWithoutOutputPrintsAYamlStreamAndHonoursOverrides() {
    Cli r = Cli.run("render", SPEC, "--target", "pytorchjob", "--set", "deployment.nodes=2:6");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("kind: PyTorchJob", "minReplicas: 2", "maxReplicas: 6", "kind: HorizontalPodAutoscaler");
  }

  @Test
  void aBadSpecExitsWith2AndOneLineNamingTheField() {
    Cli r = Cli.run("render", SPEC, "--target", "jobset", "--set", "deployment.requests.memory=lots");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("error: deployment.requests.memory: 'lots' is not a Kubernetes quantity; write e.g. 2, 500m, 16Gi"
        + System.lineSeparator());
    assertThat(Cli.run("render", SPEC, "--target", "slurm").err()).contains("'slurm' is not a target; use one of pytorchjob, trainjob, jobset, job");
    assertThat(Cli.run("render", SPEC, "--target", "job", "--set", "deployment.colour=red").err())
        .startsWith("error: deployment.colour: unknown field; known fields here: affinity, autoscaleCpuUtilization,");
    assertThat(Cli.run("render", "missing.yaml", "--target", "job").code()).isEqualTo(2);
  }

  @Test
  void searchRendersAKatibExperimentWhoseTrialsSetTheSearchedPath() {
    Cli r = Cli.run("render", SPEC, "--target", "pytorchjob", "--search", "train.lr=1e-4:1e-3", "--trials", "8");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("kind: Experiment", "name: trainLr", "parameterType: double", "min: 1e-4",
        "train.lr=${trialParameters.trainLr}", "kind: StdOut", "objectiveMetricName: loss", "maxTrialCount: 8");
    Cli bad = Cli.run("render", SPEC, "--target", "pytorchjob", "--search", "train.lr=-1:1");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).startsWith("error: train.lr:");
  }
}
