package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.checkpoint.CheckpointLayout;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.RunSummary;
import dev.weft.spec.SpecIO;
import dev.weft.Trainer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to {@code weft train} (one host, dp=2) at a random step, with {@code checkpoint.every: 1000}: the launcher
 * forwards it, both ranks stop after the same step, save an emergency checkpoint of it, rank 0 writes
 * {@code status: preempted}, and everything exits 0; {@code --resume latest} then trains the rest with the losses of
 * an uninterrupted run, each step once in metrics.jsonl. A second SIGTERM exits at once (143) on the last committed
 * checkpoint. Deadlines are generous: the machine may run at load 5-15.
 */
@Tag("slow")
class PreemptionProcessTest {
  static final int STEPS = 12;
  static final int LONG_STEPS = 150; // the run SIGTERM interrupts: a tiny step takes ~10 ms on a quiet machine, so 12 ended before the signal
  @TempDir Path dir;

  static Path spec(Path dir, int every) { return spec(dir, every, 32, STEPS); }

  static Path spec(Path dir, int every, int hidden) { return spec(dir, every, hidden, STEPS); }

  static Path spec(Path dir, int every, int hidden, int steps) {
    Path spec = dir.resolve("spec.yaml");
    SpecIO.write(Trainer.model("gpt").name("preempt").set("model.config.layers", 1).set("model.config.hidden", hidden)
        .set("model.config.heads", 2).seqLen(16).globalBatch(8).steps(steps).dataParallel(2).set("train.logEvery", 1)
        .set("checkpoint.every", every).set("checkpoint.dir", dir.resolve("ckpt").toString()).toSpec(), spec);
    return spec;
  }

  private Process train(Path spec, Path run, String log, String... flags) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("dev.weft.cli.WeftMain", "train", spec.toString(), "--run-dir", run.toString()));
    cmd.addAll(List.of(flags));
    return new ProcessBuilder(JavaCommand.of(cmd)).redirectErrorStream(true).redirectOutput(dir.resolve(log).toFile())
        .start();
  }

  private String log(String name) throws Exception { return Files.readString(dir.resolve(name), StandardCharsets.UTF_8); }

  static void awaitLine(Path log, String text, Process p) throws Exception {
    dev.weft.testing.ProcessLogs.awaitLine(log, text, p);
  }


  /** Step → loss of a run's metrics.jsonl, asserting every step appears once. */
  static Map<Long, Double> losses(Path run) throws Exception {
    Map<Long, Double> out = new LinkedHashMap<>();
    for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) {
      var n = MetricsJson.MAPPER.readTree(line);
      assertThat(out.put(n.get("step").asLong(), n.get("loss").asDouble())).as("step " + n.get("step") + " twice").isNull();
    }
    return out;
  }

  @Test
  void sigtermSavesTheStepReachedExitsZeroAndTheResumeMatchesAnUninterruptedRun() throws Exception {
    Path spec = spec(dir, 1000, 32, LONG_STEPS);
    Process ref = train(spec(dir.resolve("ref-spec"), 1000, 32, LONG_STEPS), dir.resolve("ref"), "ref.log");
    int at = ThreadLocalRandom.current().nextInt(2, 6);
    Process p = train(spec, dir.resolve("run"), "run.log");
    awaitLine(dir.resolve("run.log"), "step " + at + "/", p);
    long t0 = System.nanoTime();
    new ProcessBuilder("kill", "-TERM", String.valueOf(p.pid())).start().waitFor(10, TimeUnit.SECONDS);
    assertThat(p.waitFor(110, TimeUnit.SECONDS)).as("exited within the default deadline").isTrue();
    double exitS = (System.nanoTime() - t0) / 1e9;
    assertThat(p.exitValue()).as(log("run.log")).isZero();
    RunSummary s = MetricsJson.readSummary(dir.resolve("run"));
    assertThat(s.status()).isEqualTo("preempted");
    assertThat(s.steps()).isBetween((long) at, (long) LONG_STEPS - 1);
    assertThat(s.error()).contains("emergency checkpoint of step " + s.steps() + " committed");
    assertThat(dir.resolve("ckpt").resolve(CheckpointLayout.stepDirName(s.steps()))).isDirectory();
    assertThat(log("run.log")).contains("SIGTERM: the workers save an emergency checkpoint");
    System.out.printf("SIGTERM at step %d: stopped after step %d, exit 0 after %.1f s (%s)%n", at, s.steps(), exitS, s.error());

    Process resumed = train(spec, dir.resolve("run"), "resume.log", "--resume", "latest");
    assertThat(resumed.waitFor(300, TimeUnit.SECONDS)).isTrue();
    assertThat(resumed.exitValue()).as(log("resume.log")).isZero();
    assertThat(log("resume.log")).contains("(step " + s.steps() + ",");
    assertThat(ref.waitFor(300, TimeUnit.SECONDS)).isTrue();
    assertThat(ref.exitValue()).as(log("ref.log")).isZero();
    Map<Long, Double> got = losses(dir.resolve("run")), want = losses(dir.resolve("ref"));
    assertThat(got.keySet()).containsExactlyElementsOf(want.keySet()).hasSize(LONG_STEPS);
    assertThat(got).isEqualTo(want);
    assertThat(MetricsJson.readSummary(dir.resolve("run")).status()).isEqualTo("completed");
  }

  @Test
  void aSecondSigtermExitsAtOnceOnTheLastCommittedCheckpoint() throws Exception {
    Path spec = spec(dir, 2, 512); // a save of ~40 MB per rank: the second signal comes while it is written
    Process p = train(spec, dir.resolve("run"), "run.log");
    awaitLine(dir.resolve("run.log"), "step 5/", p);
    long t0 = System.nanoTime();
    new ProcessBuilder("sh", "-c", "kill -TERM " + p.pid() + "; sleep 0.2; kill -TERM " + p.pid()).start().waitFor(10, TimeUnit.SECONDS);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    double exitS = (System.nanoTime() - t0) / 1e9;
    assertThat(p.exitValue()).as(log("run.log")).isEqualTo(143);
    assertThat(log("run.log")).contains("a second SIGTERM came before the emergency checkpoint was done");
    System.out.printf("two SIGTERMs: exit 143 after %.1f s%n", exitS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); // the workers halt when their launcher's pipe closes
    while (p.descendants().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) Thread.sleep(100);
    Process resumed = train(spec, dir.resolve("run"), "resume.log", "--resume", "latest");
    assertThat(resumed.waitFor(300, TimeUnit.SECONDS)).isTrue();
    assertThat(resumed.exitValue()).as(log("resume.log")).isZero();
    assertThat(log("resume.log")).contains("resumed from");
    assertThat(losses(dir.resolve("run"))).hasSize(STEPS);
  }

}
