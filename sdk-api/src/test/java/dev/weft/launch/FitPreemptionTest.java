package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.checkpoint.CheckpointLayout;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.RunSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to a JVM whose {@code fit()} runs two ranks as threads ({@link #main}, started as its own process): both
 * threads stop after the same step, the emergency checkpoint of it is committed, summary.json says preempted, and
 * the JVM exits 0.
 */
@Tag("slow")
class FitPreemptionTest {
  @TempDir Path dir;

  /** The application under test: fit() of a long dp=2 run into {@code args[0]}, checkpoints every 1000 steps into {@code args[1]}. */
  public static void main(String[] args) {
    Trainer.model("gpt").name("fit-preempt").set("model.config.layers", 1).set("model.config.hidden", 32)
        .set("model.config.heads", 2).seqLen(16).globalBatch(8).steps(100_000).dataParallel(2).runDir(Path.of(args[0]))
        .set("checkpoint.every", 1000).set("checkpoint.dir", args[1])
        .onStep((m, total) -> System.out.println("fit step " + m.step())).fit();
    System.out.println("fit returned"); // never: SIGTERM ends the JVM once the checkpoint is committed
  }

  @Test
  void sigtermToFitsJvmSavesTheStepReachedAndExitsZero() throws Exception {
    Path log = dir.resolve("fit.log");
    Process p = new ProcessBuilder(JavaCommand.of(List.of(FitPreemptionTest.class.getName(), dir.resolve("run").toString(),
        dir.resolve("ckpt").toString()))).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    dev.weft.testing.ProcessLogs.awaitLine(log, "fit step 3", p);
    long t0 = System.nanoTime();
    new ProcessBuilder("kill", "-TERM", String.valueOf(p.pid())).start().waitFor(10, TimeUnit.SECONDS);
    assertThat(p.waitFor(110, TimeUnit.SECONDS)).isTrue();
    double exitS = (System.nanoTime() - t0) / 1e9;
    assertThat(p.exitValue()).as(Files.readString(log)).isZero();
    RunSummary s = MetricsJson.readSummary(dir.resolve("run"));
    assertThat(s.status()).isEqualTo("preempted");
    assertThat(s.steps()).isGreaterThanOrEqualTo(3);
    assertThat(dir.resolve("ckpt").resolve(CheckpointLayout.stepDirName(s.steps()))).isDirectory();
    assertThat(Files.readString(log)).doesNotContain("fit returned");
    System.out.printf("fit(): SIGTERM → exit 0 after %.1f s at step %d%n", exitS, s.steps());
  }
}
