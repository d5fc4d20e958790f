package dev.weft.log;

import dev.weft.testing.StartedProcesses;
import dev.weft.launch.JavaCommand;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.Trainer;
import dev.weft.launch.FreePort;
import dev.weft.launch.LocalLauncher;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Real two-rank runs with {@code logging.format: json}: every line the launcher or the agent prints is one JSON object. */
@Tag("slow")
class JsonLogProcessTest {
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;
  @RegisterExtension final StartedProcesses started = new StartedProcesses();


  private Path spec() {
    Path f = dir.resolve("tiny.yaml");
    SpecIO.write(Trainer.model("gpt").name("json-logs").set("model.config.layers", 1).set("model.config.hidden", 32)
        .set("model.config.heads", 2).seqLen(16).globalBatch(8).steps(4).dataParallel(2).set("train.logEvery", 1)
        .timeout(Duration.ofSeconds(60)).toSpec(), f);
    return f;
  }

  /** {@code weft ARGS} with stdout and stderr in their own files; the exit code within the deadline. */
  private int weft(List<String> args, String envFormat) throws Exception {
    List<String> argv = new ArrayList<>(List.of("dev.weft.cli.WeftMain"));
    argv.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(JavaCommand.of(argv))
        .redirectOutput(dir.resolve("out.log").toFile()).redirectError(dir.resolve("err.log").toFile());
    pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
    pb.environment().remove(LogFormat.ENV);
    if (envFormat != null) pb.environment().put(LogFormat.ENV, envFormat);
    Process p = pb.start();
    started.add(p);
    boolean done = p.waitFor(6, TimeUnit.MINUTES);
    assertThat(done).as("finished within 6 minutes:\n%s", tail()).isTrue();
    return p.exitValue();
  }

  private String tail() throws IOException {
    return String.join("\n", lines("out.log").stream().skip(Math.max(0, lines("out.log").size() - 30)).toList())
        + "\n--- stderr\n" + String.join("\n", lines("err.log"));
  }

  private List<String> lines(String file) throws IOException {
    Path f = dir.resolve(file);
    return Files.exists(f) ? Files.readAllLines(f) : List.of();
  }

  /** Every line of {@code file} as an object with ts, level, logger and message; fails naming the first line that is not. */
  private List<JsonNode> objects(String file) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : lines(file)) {
      JsonNode n;
      try {
        n = JSON.readTree(line);
      } catch (IOException e) {
        throw new AssertionError(file + " has a line that is not JSON: " + line);
      }
      assertThat(n.isObject()).as(line).isTrue();
      for (String field : List.of("ts", "level", "logger", "message")) assertThat(n.has(field)).as(field + " in " + line).isTrue();
      out.add(n);
    }
    return out;
  }

  private static Set<Integer> ranks(List<JsonNode> lines) {
    Set<Integer> out = new TreeSet<>();
    for (JsonNode n : lines) if (n.has("rank")) out.add(n.path("rank").asInt());
    return out;
  }

  @Test
  void aFixedRunFromTheSpec() throws Exception {
    int code = weft(List.of("train", spec().toString(), "--nproc", "2", "--run-dir", dir.resolve("run").toString(),
        "--set", "logging.format=json"), null);
    assertThat(code).as(tail()).isZero();
    List<JsonNode> out = objects("out.log");
    objects("err.log");
    assertThat(ranks(out)).as("lines from both workers").containsExactly(0, 1);
    assertThat(out).as("a step line with its step").anyMatch(n -> n.path("step").asInt() == 4 && n.path("message").asText().startsWith("step 4/4"));
    assertThat(out).as("a logger's line").anyMatch(n -> n.path("logger").asText().equals("dev.weft.train.TrainingLoop"));
    assertThat(out).as("the launcher's own line, with no rank").anyMatch(n -> !n.has("rank") && n.path("message").asText().startsWith("weft: done"));
    assertThat(MetricsJson.readSummary(dir.resolve("run")).replicasConsistent()).isTrue();
  }

  @Test
  void anElasticAgentFromTheEnvironment() throws Exception {
    int code = weft(List.of("train", spec().toString(), "--nnodes", "1:1", "--nproc-per-node", "2", "--rdzv-endpoint",
        "127.0.0.1:" + FreePort.find(), "--rdzv-id", "j", "--join-window", "1", "--run-dir", dir.resolve("run").toString()), "json");
    assertThat(code).as(tail()).isZero();
    List<JsonNode> out = objects("out.log");
    objects("err.log");
    assertThat(ranks(out)).containsExactly(0, 1);
    assertThat(out).as("the agent's lines").anyMatch(n -> n.path("logger").asText().equals("dev.weft.elastic.ElasticAgent"));
  }
}
