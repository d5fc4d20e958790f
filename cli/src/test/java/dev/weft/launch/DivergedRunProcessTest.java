package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.RunSummary;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weft train} as a process on a run that diverges at step 2 (lr 1e30, no warm-up or clipping): the workers
 * exit 3, the launcher and {@code weft train} exit 3, and summary.json says diverged with the step and rank. Before,
 * the same run exited 0 with {@code status: completed} and {@code final_loss: 0.0}. One rank and two data-parallel
 * ranks are DivergenceTest's (in one JVM); here a launcher with two stages and an elastic agent carry the exit code.
 */
@Tag("slow")
class DivergedRunProcessTest {
  @TempDir Path dir;

  private RunSummary train(String... sets) throws Exception { return train(List.of(), sets); }

  private RunSummary train(List<String> flags, String... sets) throws Exception {
    Path spec = dir.resolve("spec.yaml");
    Files.writeString(spec, """
        name: diverge
        model:
          factory: gpt
          config: {layers: 2, hidden: 32, heads: 2}
        data: {seqLen: 16}
        train: {steps: 6, globalBatch: 8, lr: 1.0e30, warmup: 0, clipGradNorm: 0.0, seed: 3}
        """);
    Path run = dir.resolve("run");
    List<String> cmd = new ArrayList<>(List.of("dev.weft.cli.WeftMain", "train", spec.toString(), "--run-dir", run.toString()));
    cmd.addAll(flags);
    for (String s : sets) cmd.addAll(List.of("--set", s));
    Path log = dir.resolve("weft.log");
    Process p = new ProcessBuilder(JavaCommand.of(cmd)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    assertThat(p.waitFor(300, TimeUnit.SECONDS)).as("weft train ended").isTrue();
    String out = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(out).isEqualTo(3);
    assertThat(out).contains("training failed: ").contains("training diverged at step 2");
    RunSummary s = MetricsJson.readSummary(run);
    assertThat(s.status()).isEqualTo("diverged");
    assertThat(s.steps()).isEqualTo(2);
    assertThat(s.finalLoss()).isGreaterThan(1);
    return s;
  }

  @Test
  void anElasticAgentStopsWithoutRestartingAndExitsThree() throws Exception {
    RunSummary s = train(List.of("--nnodes", "1:1", "--rdzv-endpoint", "127.0.0.1:" + FreePort.find(), "--rdzv-id", "d",
        "--join-window", "1"), "elastic.standby=0");
    assertThat(s.error()).contains("loss is NaN on rank 0");
    String out = Files.readString(dir.resolve("weft.log"), StandardCharsets.UTF_8);
    assertThat(out).contains("diverged").contains("not restarting").doesNotContain("generation 1:");
  }

  @Test
  void twoPipelineStagesExitThreeNamingTheStageWithTheLoss() throws Exception {
    assertThat(train("parallel.pp=2", "parallel.microBatches=2").error()).contains("loss is NaN on rank 1");
  }
}
