package dev.weft.train.grpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.weft.Trainer;
import dev.weft.checkpoint.CheckpointLayout;
import dev.weft.launch.JavaCommand;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.RunSummary;
import dev.weft.train.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 45, a GRPO run's life: only the prompt file is read (one short row is enough), ZeRO-1/2 take dp's steps, a
 * resumed run continues exactly (its rollout batch is sampled again from the restored policy: nothing half-saved),
 * and SIGTERM stops it at a step boundary with that step's checkpoint, from which it continues as if never stopped.
 */
class GrpoRunLifecycleTest {
  @TempDir static Path dir;

  static Trainer grpo(Path prompts) {
    return GrpoTrainingTest.grpo().data(prompts.toString()).reward(GrpoTrainingTest.DIGITS, 0.25) // rewards that vary within a group
        .set("train.schedule", "constant"); // runs of any length share a schedule
  }

  static Path prompts() throws Exception {
    Path p = dir.resolve("prompts.jsonl");
    if (!Files.exists(p)) GrpoTrainingTest.writePrompts(p);
    return p;
  }

  @Test
  void aPromptFileShorterThanASequenceIsEnough() throws Exception {
    Path one = Files.writeString(dir.resolve("one.jsonl"), "{\"prompt\": \"1+2=\", \"answer\": 3}\n"); // 32 bytes < seqLen + 1
    RunResult r = grpo(one).seqLen(64).globalBatch(4).steps(1).runDir(dir.resolve("short")).fit();
    assertThat(r.losses()).hasSize(1).allMatch(Double::isFinite);
  }

  @Test
  void zeroOneAndTwoTakeTheStepsOfPlainDataParallelism() throws Exception {
    RunResult plain = grpo(prompts()).dataParallel(2).microBatches(1).runDir(dir.resolve("z0")).fit();
    assertThat(plain.losses()).anyMatch(l -> Math.abs(l) > 1e-3);
    for (int zero = 1; zero <= 2; zero++) {
      RunResult z = grpo(prompts()).dataParallel(2).microBatches(1).zero(zero).runDir(dir.resolve("z" + zero)).fit();
      for (int s = 0; s < 3; s++) {
        assertThat(z.losses().get(s)).as("zero=%d step %d", zero, s + 1).isCloseTo(plain.losses().get(s), within(1e-5));
      }
    }
  }

  @Test
  void aResumedRunContinuesExactly() throws Exception {
    Path ckpt = dir.resolve("resume-ckpt");
    // μ = 2, checkpoints after whole rollout batches: step 3 samples batch 1 from the restored policy, as the whole run does
    RunResult whole = grpo(prompts()).set("train.grpo.mu", 2).steps(4).runDir(dir.resolve("whole")).fit();
    grpo(prompts()).set("train.grpo.mu", 2).steps(2).checkpointDir(ckpt).checkpointEvery(2).runDir(dir.resolve("first")).fit();
    RunResult resumed = grpo(prompts()).set("train.grpo.mu", 2).steps(4).checkpointDir(ckpt).resume("latest").runDir(dir.resolve("rest")).fit();
    assertThat(resumed.losses()).hasSize(2).anyMatch(l -> Math.abs(l) > 1e-3);
    for (int s = 0; s < 2; s++) assertThat(resumed.losses().get(s)).as("step %d", s + 3).isCloseTo(whole.losses().get(s + 2), within(1e-6));
  }

  /** The application under test: GRPO fit() with two ranks as threads, checkpoints every 1000 steps into args[2]. */
  public static void main(String[] args) {
    grpo(Path.of(args[0])).steps(100_000).dataParallel(2).microBatches(1).runDir(Path.of(args[1]))
        .set("checkpoint.every", 1000).set("checkpoint.dir", args[2])
        .onStep((m, total) -> System.out.println("fit step " + m.step())).fit();
    System.out.println("fit returned");
  }

  @Test
  void sigtermStopsAtAStepBoundaryAndTheRunContinuesAsIfNeverStopped() throws Exception {
    Path log = dir.resolve("fit.log"), ckpt = dir.resolve("term-ckpt");
    Process p = new ProcessBuilder(JavaCommand.of(List.of(GrpoRunLifecycleTest.class.getName(), prompts().toString(),
        dir.resolve("term").toString(), ckpt.toString()))).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    dev.weft.testing.ProcessLogs.awaitLine(log, "fit step 2", p);
    new ProcessBuilder("kill", "-TERM", String.valueOf(p.pid())).start().waitFor(10, TimeUnit.SECONDS);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(log)).isZero();
    RunSummary s = MetricsJson.readSummary(dir.resolve("term"));
    assertThat(s.status()).isEqualTo("preempted");
    assertThat(ckpt.resolve(CheckpointLayout.stepDirName(s.steps()))).isDirectory();
    long next = s.steps() + 1;
    RunResult resumed = grpo(prompts()).steps((int) next).dataParallel(2).microBatches(1).checkpointDir(ckpt).resume("latest")
        .runDir(dir.resolve("term-rest")).fit();
    RunResult straight = grpo(prompts()).steps((int) next).dataParallel(2).microBatches(1).runDir(dir.resolve("term-straight")).fit();
    assertThat(resumed.losses()).hasSize(1);
    assertThat(straight.losses()).anyMatch(l -> Math.abs(l) > 1e-3);
    assertThat(resumed.losses().get(0)).as("step %d", next).isCloseTo(straight.losses().get((int) next - 1), within(1e-6));
  }
}
