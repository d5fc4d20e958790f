package dev.weft.k8s;

import dev.weft.launch.JavaCommand;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.k8s.render.Target;
import dev.weft.k8s.yaml.Yaml;
import dev.weft.launch.LocalLauncher;
import dev.weft.metrics.MetricsJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The check, for real: a Secret's value given to the workers through deployment.secretEnv is in no
 * file of the run directory, its checkpoints, its log or any target's rendered manifests.
 */
@Tag("slow")
class SecretsStaySecretProcessTest {
  static final String VALUE = "SECRET123";
  static final List<String> OVERRIDES = List.of("deployment.secretEnv.HF_TOKEN=hf/token", "model.config.layers=1",
      "model.config.hidden=32", "model.config.heads=2", "data.seqLen=16", "train.steps=4", "checkpoint.every=2");
  @TempDir Path dir;

  /** Files under {@code root} whose bytes hold {@code needle} (what {@code grep -rl} prints). */
  static List<Path> holding(Path root, String needle) throws IOException {
    byte[] n = needle.getBytes(StandardCharsets.UTF_8);
    List<Path> out = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        if (new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1).contains(new String(n, StandardCharsets.ISO_8859_1))) out.add(f);
      }
    }
    return out;
  }

  @Test
  void theSearchFindsWhatIsThere() throws IOException {
    Files.writeString(dir.resolve("canary.bin"), "abc" + VALUE + "def");
    assertThat(holding(dir, VALUE)).containsExactly(dir.resolve("canary.bin"));
  }

  @Test
  void aSecretValueReachesTheWorkersAndNothingElse() throws Exception {
    Path rendered = dir.resolve("manifests");
    for (Target t : Target.values()) {
      List<String> args = new ArrayList<>(List.of("render", TestSpecs.path("gpt-tiny.yaml").toString(), "--target", t.cliName(),
          "-o", rendered.resolve(t.cliName()).toString()));
      for (String o : OVERRIDES) args.addAll(List.of("--set", o));
      Cli r = Cli.run(args.toArray(String[]::new));
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(String.join("\n", texts(rendered.resolve(t.cliName())))).as("%s's pods", t).contains("secretKeyRef");
    }
    // The workers read the ConfigMap's spec, as in a pod; checkpoints go under the run directory here.
    Path run = dir.resolve("run");
    Files.createDirectories(run);
    Path spec = run.resolve("worker-spec.yaml");
    Files.writeString(spec, workerSpec(rendered.resolve("job")));
    List<String> argv = List.of("dev.weft.cli.WeftMain", "train", spec.toString(), "--nproc", "2", "--run-dir", run.toString(),
        "--set", "checkpoint.dir=" + run.resolve("checkpoints"));
    Path log = run.resolve("weft.log");
    ProcessBuilder pb = new ProcessBuilder(JavaCommand.of(argv)).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
    pb.environment().put("HF_TOKEN", VALUE); // what the kubelet puts in the container from Secret hf, key token
    Process p = pb.start();
    try {
      assertThat(p.waitFor(6, TimeUnit.MINUTES)).as("finished in 6 minutes").isTrue();
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    assertThat(p.exitValue()).as(Files.readString(log)).isZero();
    assertThat(MetricsJson.readSummary(run).steps()).isEqualTo(4);
    try (Stream<Path> manifests = Files.walk(run.resolve("checkpoints"))) {
      assertThat(manifests.filter(f -> f.getFileName().toString().equals("manifest.json")).count()).as("checkpoints written").isPositive();
    }
    assertThat(Files.readString(run.resolve("spec.yaml"))).as("the reference is kept").contains("hf/token");
    assertThat(holding(dir, VALUE)).as("files holding the secret's value").isEmpty();
  }

  /** The text of every file in {@code d} (one object per file, as {@code render -o} writes them). */
  private static List<String> texts(Path d) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> s = Files.list(d)) {
      for (Path f : s.filter(Files::isRegularFile).sorted().toList()) out.add(Files.readString(f));
    }
    return out;
  }

  private static String workerSpec(Path renderedDir) throws IOException {
    for (String text : texts(renderedDir)) {
      var tree = Yaml.read(text);
      if ("ConfigMap".equals(tree.path("kind").asText())) return tree.path("data").path("spec.yaml").asText();
    }
    throw new AssertionError("no ConfigMap in " + renderedDir);
  }
}
