package dev.weft.s3;

import dev.weft.launch.JavaCommand;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.launch.FreePort;
import dev.weft.launch.LocalLauncher;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecIO;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real elastic agent ({@code weft train --nnodes 1:1}) checkpointing to S3Proxy, the endpoint and
 * keys only in its environment: its worker is SIGKILLed mid-run, and the next generation resumes
 * from the bucket, trains every step once and matches an uninterrupted run's losses.
 */
@Tag("slow")
class S3ElasticProcessTest {
  private static final int STEPS = 16;
  @TempDir Path dir;
  private Process agent;

  private static Trainer tiny() {
    return Trainer.model("gpt").name("tiny-s3-elastic").set("model.config.layers", 2).set("model.config.hidden", 32)
        .set("model.config.heads", 2).seqLen(16).globalBatch(8).steps(STEPS).warmup(2).lr(3e-3).seed(7)
        .set("train.logEvery", 1).set("elastic.failureTimeoutSeconds", 5).timeout(Duration.ofSeconds(60));
  }

  @AfterEach
  void killAgent() {
    if (agent == null) return;
    agent.descendants().forEach(ProcessHandle::destroyForcibly);
    agent.destroyForcibly();
  }

  @Test
  void aKilledWorkerIsReplacedAndResumesFromTheBucket() throws Exception {
    try (S3Server server = S3Server.start("ckpt")) {
      agent = startAgent("s3://ckpt/elastic", server);
      awaitStep(6); // past the first checkpoint (step 4), so the restart has one to resume from
      // the agent names its worker's pid (its warm standby is a child too)
      java.util.regex.Matcher named = java.util.regex.Pattern.compile("rank 0 runs in pid (\\d+)").matcher(log());
      long pid = -1;
      while (named.find()) pid = Long.parseLong(named.group(1));
      ProcessHandle worker = ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
          .orElseThrow(() -> new AssertionError("no worker:\n" + log()));
      new ProcessBuilder("kill", "-KILL", String.valueOf(worker.pid())).start().waitFor(5, TimeUnit.SECONDS);
      assertThat(agent.waitFor(180, TimeUnit.SECONDS)).as("agent finished:\n%s", log()).isTrue();
      assertThat(agent.exitValue()).as(log()).isZero();

      assertThat(log()).containsPattern("resumed from s3://ckpt/elastic/step-0000(04|08|12)");
      JsonNode s = MetricsJson.MAPPER.readTree(dir.resolve("run/summary.json").toFile());
      assertThat(s.get("status").asText()).isEqualTo("completed");
      assertThat(s.get("restarts").asInt()).isGreaterThanOrEqualTo(1);
      List<JsonNode> m = metrics();
      assertThat(m.stream().mapToLong(n -> n.get("step").asLong()).toArray()).containsExactly(LongStream.rangeClosed(1, STEPS).toArray());
      JsonNode gens = s.get("elastic").get("generations");
      long resumedAt = gens.get(gens.size() - 1).get("first_step").asLong();
      assertThat(resumedAt).as("the last generation started from a checkpoint").isGreaterThan(1);
      List<Double> reference = tiny().runDir(dir.resolve("reference")).fit().losses();
      for (JsonNode n : m) {
        long step = n.get("step").asLong();
        if (step < resumedAt) continue;
        double want = reference.get((int) step - 1);
        assertThat(Math.abs(n.get("loss").asDouble() - want) / Math.abs(want)).as("step " + step).isLessThan(1e-4);
      }
      // the run record is kept with the checkpoints, and weft report reads it from there
      ProcessBuilder report = new ProcessBuilder(JavaCommand.of(List.of("dev.weft.cli.WeftMain", "report",
          "s3://ckpt/elastic", "--out", dir.resolve("record").toString()))).redirectErrorStream(true)
          .redirectOutput(dir.resolve("report.log").toFile());
      withS3(report, server);
      Process r = report.start();
      assertThat(r.waitFor(120, TimeUnit.SECONDS)).isTrue();
      assertThat(r.exitValue()).as(Files.readString(dir.resolve("report.log"))).isZero();
      List<JsonNode> recorded = new ArrayList<>();
      for (String l : Files.readAllLines(dir.resolve("record/metrics.jsonl"))) if (!l.isBlank()) recorded.add(MetricsJson.MAPPER.readTree(l));
      assertThat(recorded.stream().mapToLong(n -> n.get("step").asLong()).toArray()).as("the record in the bucket: every step once")
          .containsExactly(LongStream.rangeClosed(1, STEPS).toArray());
      assertThat(recorded).allSatisfy(n -> assertThat(n.has("generation")).isTrue());
      assertThat(MetricsJson.readSummary(dir.resolve("record")).status()).isEqualTo("completed");
      assertThat(dir.resolve("record/elastic.json")).isRegularFile();
      assertThat(dir.resolve("record/report.html")).isRegularFile();
      try (Stream<Path> files = Files.walk(dir.resolve("run"))) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          assertThat(Files.readString(f, StandardCharsets.ISO_8859_1)).as(f.toString()).doesNotContain(S3Server.SECRET);
        }
      }
    }
  }

  @Test
  void aMissingBucketIsOneLineBeforeAnyWorkerStarts() throws Exception {
    try (S3Server server = S3Server.start("ckpt")) {
      agent = startAgent("s3://nope/elastic", server);
      assertThat(agent.waitFor(120, TimeUnit.SECONDS)).as("agent finished:\n%s", log()).isTrue();
      assertThat(agent.exitValue()).as(log()).isEqualTo(2);
      assertThat(log()).contains("weft: checkpoint.dir").contains("bucket 'nope' does not exist").doesNotContain("generation 0")
          .doesNotContain("\tat ");
    }
  }

  /** {@code weft train SPEC --nnodes 1:1} checkpointing every 4 steps to {@code checkpointDir}; the S3 settings only in its environment (the workers inherit them). */
  private Process startAgent(String checkpointDir, S3Server server) throws IOException {
    Path spec = dir.resolve("tiny.yaml");
    SpecIO.write(tiny().checkpointEvery(4).set("checkpoint.dir", checkpointDir).toSpec(), spec);
    List<String> cmd = JavaCommand.of(List.of("dev.weft.cli.WeftMain", "train", spec.toString(), "--nnodes", "1:1",
        "--rdzv-endpoint", "127.0.0.1:" + FreePort.find(), "--rdzv-id", "s3", "--run-dir", dir.resolve("run").toString(),
        "--join-window", "1"));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile());
    withS3(pb, server);
    return pb.start();
  }

  /** The S3 settings in the environment only, as a pod would get them. */
  private static void withS3(ProcessBuilder pb, S3Server server) {
    pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
    pb.environment().put("AWS_ENDPOINT_URL", server.endpoint.toString());
    pb.environment().put("AWS_ACCESS_KEY_ID", S3Server.ACCESS);
    pb.environment().put("AWS_SECRET_ACCESS_KEY", S3Server.SECRET);
    pb.environment().put("AWS_REGION", "us-east-1");
  }

  private void awaitStep(long step) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180); // two JVMs starting on a crowded machine
    while (System.nanoTime() < deadline) {
      if (MetricsJson.lossAt(dir.resolve("run"), step).isPresent()) return; // empty while the last line is being written
      if (!agent.isAlive()) throw new AssertionError("the agent exited early:\n" + log());
      Thread.sleep(100);
    }
    throw new AssertionError("step " + step + " not reached in 180 s:\n" + log());
  }

  /** The lines of the finished run's metrics.jsonl. */
  private List<JsonNode> metrics() throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String l : Files.readAllLines(dir.resolve("run/metrics.jsonl"))) {
      if (!l.isBlank()) out.add(MetricsJson.MAPPER.readTree(l));
    }
    return out;
  }

  private String log() {
    try {
      return Files.readString(dir.resolve("agent.log"));
    } catch (IOException e) {
      return "(no agent.log: " + e.getMessage() + ")";
    }
  }
}
