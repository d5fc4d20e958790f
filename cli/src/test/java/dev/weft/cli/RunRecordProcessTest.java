package dev.weft.cli;

import dev.weft.testing.StartedProcesses;
import dev.weft.launch.JavaCommand;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.launch.LocalLauncher;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecIO;
import dev.weft.testing.WeftCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weft train} SIGKILLed mid-run, then resumed with {@code --resume latest} to the end: the run's metrics.jsonl
 * holds every step exactly once, whether the resumed run uses the same run directory or a new one (another pod) with
 * the checkpoints elsewhere, where the run record is kept ({@code CKPT/run/}) and {@code weft report CKPT} reads it.
 */
@Tag("slow")
class RunRecordProcessTest {
  private static final int STEPS = 30;
  @TempDir Path dir;
  @RegisterExtension final StartedProcesses started = new StartedProcesses();


  private Path spec() {
    Path f = dir.resolve("tiny.yaml");
    SpecIO.write(Trainer.model("gpt").name("tiny-record").set("model.config.layers", 2).set("model.config.hidden", 32)
        .set("model.config.heads", 2).seqLen(16).globalBatch(8).steps(STEPS).warmup(2).set("train.logEvery", 1)
        .checkpointEvery(4).toSpec(), f);
    return f;
  }

  private Process train(Path spec, Path runDir, String log, String... more) throws Exception {
    List<String> args = new ArrayList<>(List.of("dev.weft.cli.WeftMain", "train", spec.toString(), "--run-dir", runDir.toString()));
    args.addAll(List.of(more));
    ProcessBuilder pb = new ProcessBuilder(JavaCommand.of(args)).redirectErrorStream(true)
        .redirectOutput(dir.resolve(log).toFile());
    pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
    Process p = pb.start();
    started.add(p);
    return p;
  }

  /** The complete lines of a metrics.jsonl that may be being written. */
  private static List<JsonNode> metricsLines(Path f) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    if (!Files.isRegularFile(f)) return out;
    for (String l : Files.readAllLines(f)) {
      try {
        if (!l.isBlank()) out.add(MetricsJson.MAPPER.readTree(l));
      } catch (java.io.IOException partial) {
        // the line being written
      }
    }
    return out;
  }

  private static long lastStep(Path metrics) throws Exception {
    List<JsonNode> m = metricsLines(metrics);
    return m.isEmpty() ? 0 : m.get(m.size() - 1).get("step").asLong();
  }

  /** Starts a run, SIGKILLs it (and its children) once it is past step 10 (a checkpoint every 4), resumes it to the end. */
  private void killAndResume(Path runA, Path runB, String... ckpt) throws Exception {
    Path spec = spec();
    Process first = train(spec, runA, "first.log", ckpt);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
    while (lastStep(runA.resolve("metrics.jsonl")) < 10 && System.nanoTime() < deadline) {
      assertThat(first.isAlive()).as(Files.readString(dir.resolve("first.log"))).isTrue();
      Thread.sleep(20);
    }
    first.descendants().forEach(ProcessHandle::destroyForcibly);
    first.destroyForcibly();
    first.waitFor(30, TimeUnit.SECONDS);
    long killedAfter = lastStep(runA.resolve("metrics.jsonl"));
    assertThat(killedAfter).as("killed mid-run").isBetween(10L, (long) STEPS - 1);
    List<String> resume = new ArrayList<>(List.of(ckpt));
    resume.addAll(List.of("--resume", "latest"));
    Process second = train(spec, runB, "second.log", resume.toArray(String[]::new));
    assertThat(second.waitFor(240, TimeUnit.SECONDS)).isTrue();
    assertThat(second.exitValue()).as(Files.readString(dir.resolve("second.log"))).isZero();
    System.out.printf("RunRecordProcessTest: killed after step %d, resumed in %s%n", killedAfter, runA.equals(runB) ? "the same run dir" : "a new run dir");
  }

  private static long[] steps(Path metrics) throws Exception {
    return metricsLines(metrics).stream().mapToLong(n -> n.get("step").asLong()).toArray();
  }

  @Test
  void aKilledRunResumedInTheSameRunDirHoldsEveryStepOnce() throws Exception {
    Path run = dir.resolve("run");
    killAndResume(run, run);
    assertThat(steps(run.resolve("metrics.jsonl"))).containsExactly(LongStream.rangeClosed(1, STEPS).toArray());
    assertThat(MetricsJson.readSummary(run).steps()).isEqualTo(STEPS);
  }

  @Test
  void aKilledRunResumedInANewRunDirFindsItsRecordWithTheCheckpoints() throws Exception {
    Path ckpt = dir.resolve("claim/ckpt");
    killAndResume(dir.resolve("pod-a"), dir.resolve("pod-b"), "--set", "checkpoint.dir=" + ckpt);
    long[] all = LongStream.rangeClosed(1, STEPS).toArray();
    assertThat(steps(dir.resolve("pod-b/metrics.jsonl"))).as("the new run dir continues the record").containsExactly(all);
    assertThat(steps(ckpt.resolve("run/metrics.jsonl"))).as("the record with the checkpoints").containsExactly(all);
    assertThat(MetricsJson.readSummary(ckpt.resolve("run")).status()).isEqualTo("completed");
    WeftCli.Run report = WeftCli.run("report", ckpt.toString());
    assertThat(report.code()).as(report.err()).isZero();
    assertThat(ckpt.resolve("run/report.html")).isRegularFile();
  }
}
