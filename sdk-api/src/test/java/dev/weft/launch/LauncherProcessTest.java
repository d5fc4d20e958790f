package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real worker processes: a clean run, a worker killed with SIGKILL, a worker stopped with SIGSTOP (a hang). */
@Tag("slow")
class LauncherProcessTest {
  @TempDir Path dir;

  private Trainer tiny(int steps) {
    return Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 64).set("model.config.heads", 2)
        .seqLen(32).globalBatch(8).steps(steps).dataParallel(2).timeout(Duration.ofSeconds(30));
  }

  @Test
  void twoProcessesTrainAndAgree() {
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    LocalLauncher.Outcome o = tiny(6).runDir(dir).launch(new PrintStream(console, true, StandardCharsets.UTF_8));
    assertThat(o.ok()).as(console.toString(StandardCharsets.UTF_8)).isTrue();
    var s = MetricsJson.readSummary(dir);
    assertThat(s.status()).isEqualTo("completed");
    assertThat(s.replicasConsistent()).isTrue();
    assertThat(console.toString(StandardCharsets.UTF_8)).contains("[rank 0] step 6/6").contains("[rank 1]");
  }

  @Test
  void aWorkerKilledWithSigkillStopsTheRunNamingItAndLeavesNoProcess() throws Exception {
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    PrintStream ps = new PrintStream(console, true, StandardCharsets.UTF_8);
    var spec = tiny(100_000).runDir(dir).toSpec();
    var file = dir.resolve("spec.yaml");
    dev.weft.spec.SpecIO.write(spec, file);
    LocalLauncher l = new LocalLauncher(List.of(dev.weft.launch.WorkerMain.CLASS, "worker", "--spec", file.toString(), "--run-dir",
        dir.toString(), "--timeout", "20"), java.util.Map.of(), ps);
    CompletableFuture<LocalLauncher.Outcome> run = CompletableFuture.supplyAsync(() -> l.run(2, 1));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!console.toString(StandardCharsets.UTF_8).contains("step ") && System.nanoTime() < deadline) Thread.sleep(200);
    assertThat(console.toString(StandardCharsets.UTF_8)).as("training started").contains("step ");
    List<ProcessHandle> workers = l.workers();
    assertThat(workers).hasSize(2);
    long killedAt = System.nanoTime();
    new ProcessBuilder("kill", "-KILL", String.valueOf(workers.get(1).pid())).start().waitFor();
    LocalLauncher.Outcome o = run.get(60, TimeUnit.SECONDS);
    assertThat((System.nanoTime() - killedAt) / 1e9).as("no hang after a rank died").isLessThan(50);
    assertThat(o.ok()).isFalse();
    assertThat(o.failedRank()).isEqualTo(1);
    assertThat(o.reason()).contains("rank 1").contains("SIGKILL");
    for (ProcessHandle w : workers) assertThat(w.isAlive()).as("worker " + w.pid() + " left behind").isFalse();
  }

  @Test
  void aStoppedWorkerIsReportedAsAHangNamingIt() throws Exception {
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    PrintStream ps = new PrintStream(console, true, StandardCharsets.UTF_8);
    var spec = tiny(100_000).runDir(dir).toSpec();
    var file = dir.resolve("spec.yaml");
    dev.weft.spec.SpecIO.write(spec, file);
    LocalLauncher l = new LocalLauncher(List.of(dev.weft.launch.WorkerMain.CLASS, "worker", "--spec", file.toString(), "--run-dir",
        dir.toString(), "--timeout", "10"), java.util.Map.of(), ps);
    CompletableFuture<LocalLauncher.Outcome> run = CompletableFuture.supplyAsync(() -> l.run(2, 1));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!console.toString(StandardCharsets.UTF_8).contains("step ") && System.nanoTime() < deadline) Thread.sleep(200);
    assertThat(console.toString(StandardCharsets.UTF_8)).as("training started").contains("step ");
    List<ProcessHandle> workers = l.workers();
    new ProcessBuilder("kill", "-STOP", String.valueOf(workers.get(1).pid())).start().waitFor();
    try {
      LocalLauncher.Outcome o = run.get(120, TimeUnit.SECONDS); // rank 0's collective times out after 10 s
      assertThat(o.ok()).isFalse();
      assertThat(o.reason()).as(o.reason()).contains("rank 1 stopped making progress").contains("a hang");
    } finally {
      new ProcessBuilder("kill", "-CONT", String.valueOf(workers.get(1).pid())).start().waitFor();
    }
    for (ProcessHandle w : workers) {
      w.onExit().get(30, TimeUnit.SECONDS);
      assertThat(w.isAlive()).as("worker " + w.pid() + " left behind").isFalse();
    }
  }

  @Test
  void processStateIsReadAfterTheCommandName() {
    assertThat(ProcessStat.parse("1234 (java) S 1 2 3")).isEqualTo('S');
    assertThat(ProcessStat.parse("1234 (we ird) name) T 1 2")).isEqualTo('T');
    assertThat(ProcessStat.state(ProcessHandle.current().pid())).isIn('R', 'S', 'D');
  }
}
