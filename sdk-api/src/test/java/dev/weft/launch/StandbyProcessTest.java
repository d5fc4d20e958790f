package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecIO;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real warm standby JVM: handed an identity it trains as that rank; when its parent's pipe closes it halts. */
@Tag("slow")
class StandbyProcessTest {
  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final PrintStream console = new PrintStream(out, true, StandardCharsets.UTF_8);
  private WarmWorker standby;

  private Path spec() {
    Path f = dir.resolve("spec.yaml");
    SpecIO.write(Trainer.model("gpt").name("standby").set("model.config.layers", 2).set("model.config.hidden", 32)
        .set("model.config.heads", 2).seqLen(16).globalBatch(8).steps(3).warmup(1).timeout(Duration.ofSeconds(60)).toSpec(), f);
    return f;
  }

  private WarmWorker start(Path spec) throws Exception {
    standby = WarmWorker.start(spec, Map.of("WEFT_THREADS", "1", "OMP_WAIT_POLICY", "PASSIVE"), name -> false, console);
    return standby;
  }

  @AfterEach
  void stop() {
    if (standby != null) standby.process().destroyForcibly();
  }

  @Test
  void aStandbyHandedAnIdentityTrainsAsThatRankInItsOwnProcess() throws Exception {
    Path spec = spec();
    WarmWorker w = start(spec);
    Path run = dir.resolve("run");
    Map<String, String> env = onlyRank();
    Process p = w.handOff(0, new StandbyHandoff(List.of("worker", "--spec", spec.toString(), "--run-dir", run.toString(),
        "--timeout", "60"), env));
    assertThat(p.pid()).isEqualTo(w.pid()); // no new process: the standby is the worker
    assertThat(p.waitFor(240, TimeUnit.SECONDS)).as("finished").isTrue();
    String log = out.toString(StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(log).isZero();
    assertThat(MetricsJson.readSummary(run).status()).isEqualTo("completed");
    assertThat(log).contains("[rank 0] step 3/3");
  }

  @Test
  void aStandbyWhoseParentPipeClosesHaltsWithoutBeingHandedAnything() throws Exception {
    WarmWorker w = start(spec());
    w.process().getOutputStream().close(); // what the agent's death does to the pipe
    assertThat(w.process().waitFor(120, TimeUnit.SECONDS)).as("halted").isTrue();
    assertThat(w.process().exitValue()).as(out.toString(StandardCharsets.UTF_8)).isEqualTo(143);
  }

  /** The identity of the only rank of a one-process run, as a launcher writes it. */
  private static Map<String, String> onlyRank() {
    Map<String, String> env = new java.util.HashMap<>(new dev.weft.comm.WorkerIdentity(0, 1, 0, "127.0.0.1", FreePort.find()).toEnv());
    env.put("WEFT_THREADS", "1");
    return env;
  }
}
