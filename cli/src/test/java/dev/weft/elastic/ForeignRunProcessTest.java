package dev.weft.elastic;

import dev.weft.testing.StartedProcesses;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.comm.RunToken;
import dev.weft.launch.FreePort;
import dev.weft.launch.JavaCommand;
import dev.weft.spec.SpecIO;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.javacpp.chrono.Milliseconds;
import org.bytedeco.pytorch.TCPStore;
import org.bytedeco.pytorch.TCPStoreOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 41 items 1 and 2, with real agents: a run is its own. An agent started with the same endpoint, id and run
 * dir as a running run but another token (or none where the run has one, or the reverse) is refused in one line,
 * exit 2, before it writes anything; deleting the store's token mark with a raw client does not let a tokenless
 * agent into the run's directory either. A run whose hosting agent made its token admits the nodes given it. (A store
 * host without a token, reachable through the DSL or etcd only, is RunTokenSteeringTest's.)
 */
@Tag("slow")
class ForeignRunProcessTest {
  private static final String TOKEN_A = "a".repeat(32);
  private static final String TOKEN_C = "z".repeat(32);
  private static final List<Object> KEEP = new ArrayList<>(); // native stores live as long as the JVM
  @TempDir Path dir;
  @RegisterExtension final StartedProcesses started = new StartedProcesses();
  private final int port = FreePort.find();


  private Path spec(String name, int steps, long seed) throws Exception {
    Path f = dir.resolve(name + ".yaml");
    SpecIO.write(Trainer.model("gpt").name("tiny-own").set("model.config.layers", 1).set("model.config.hidden", 32)
        .set("model.config.heads", 2).seqLen(16).globalBatch(4).set("parallel.microBatches", 2).steps(steps).seed(seed).set("train.logEvery", 1)
        .set("checkpoint.every", Math.min(steps, 200)).toSpec(), f);
    return f;
  }

  /** {@code weft train SPEC --nnodes 1:2} on the shared endpoint, id and run dir; token "" for none. */
  private Process agent(Path spec, String node, String token) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(JavaCommand.of(List.of("dev.weft.cli.WeftMain", "train", spec.toString(),
        "--nnodes", "1:2", "--rdzv-endpoint", "127.0.0.1:" + port, "--rdzv-id", "demo2", "--run-dir", dir.resolve("run").toString(),
        "--join-window", "1", "--set", "elastic.standby=0")))
        .redirectOutput(dir.resolve(node + ".out").toFile()).redirectError(dir.resolve(node + ".err").toFile());
    pb.environment().remove(RunToken.ENV);
    pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
    if (!token.isEmpty()) pb.environment().put(RunToken.ENV, token);
    Process p = pb.start();
    started.add(p);
    return p;
  }

  /** Run A, training: its first metrics line is written (generously: a loaded machine). */
  private Process runA(String token) throws Exception {
    Process a = agent(spec("a", 1_000_000, 1), "node-a", token);
    Path metrics = dir.resolve("run/metrics.jsonl");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
    while (!(Files.isRegularFile(metrics) && Files.size(metrics) > 0)) {
      assertThat(a.isAlive()).as("run A ended: " + Files.readString(dir.resolve("node-a.err"))).isTrue();
      assertThat(System.nanoTime()).as("run A never trained: " + Files.readString(dir.resolve("node-a.out"))).isLessThan(deadline);
      Thread.sleep(200);
    }
    return a;
  }

  /** Starts a foreign agent (10 steps, seed 999) and asserts it is refused in one line, exit 2, having written nothing. */
  private String refused(String node, String token, Process a) throws Exception {
    byte[] specBefore = Files.readAllBytes(dir.resolve("run/spec.yaml"));
    Process c = agent(spec(node, 10, 999), node, token);
    assertThat(c.waitFor(180, TimeUnit.SECONDS)).as(node + " ends").isTrue();
    String err = Files.readString(dir.resolve(node + ".err")).strip();
    assertThat(c.exitValue()).as(err + Files.readString(dir.resolve(node + ".out"))).isEqualTo(2);
    assertThat(err.lines()).as(err).hasSize(1);
    assertThat(err).startsWith("weft: ").doesNotContain("Exception").doesNotContain(TOKEN_A).doesNotContain(TOKEN_C);
    assertThat(Files.readAllBytes(dir.resolve("run/spec.yaml"))).as("spec.yaml untouched").isEqualTo(specBefore);
    assertThat(dir.resolve("run/checkpoints/step-000010")).doesNotExist();
    assertThat(a.isAlive()).as("run A goes on").isTrue();
    return err;
  }

  private static TCPStore raw(int port) {
    TCPStoreOptions o = new TCPStoreOptions();
    o.port((short) port).isServer(false).waitWorkers(false).timeout(new Milliseconds(30_000));
    TCPStore s = new TCPStore("127.0.0.1", o);
    KEEP.add(s);
    return s;
  }

  @Test
  void anAgentWithAnotherTokenOrNoneCannotTakeOverATokenedRun() throws Exception {
    Process a = runA(TOKEN_A);
    assertThat(Files.readString(dir.resolve("run/spec.yaml"))).as("spec.yaml names its run's token")
        .startsWith("# written by elastic run demo2@127.0.0.1:" + port + ", run token " + RunToken.identity(TOKEN_A) + "\n");
    assertThat(refused("node-c", TOKEN_C, a)).startsWith("weft: WEFT_RUN_TOKEN: the rendezvous store at 127.0.0.1:" + port)
        .contains("another run token");
    // any local process may delete the store's mark; the run dir's lock still names the run's token
    assertThat(raw(port).deleteKey(RunToken.MARK_KEY)).isTrue();
    assertThat(refused("node-d", "", a)).startsWith("weft: --run-dir: ").contains("in use by another run", "token=sha256:");
  }

  @Test
  void aRunThatMadeItsOwnTokenAdmitsOnlyNodesGivenIt() throws Exception {
    Process a = runA(""); // the hosting agent makes the run a token and prints it
    assertThat(refused("node-c", TOKEN_C, a)).contains("another run token");
    Matcher printed = Pattern.compile("WEFT_RUN_TOKEN=([0-9a-f]{32}) in their environment").matcher(Files.readString(dir.resolve("node-a.out")));
    assertThat(printed.find()).isTrue();
    Process b = agent(spec("b", 1_000_000, 1), "node-b", printed.group(1)); // the run's own second node shares its directory
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
    while (!Files.readString(dir.resolve("node-b.out")).matches("(?s).*generation \\d+: node \\d of 2.*")) {
      assertThat(b.isAlive()).as("node b ended: " + Files.readString(dir.resolve("node-b.err"))).isTrue();
      assertThat(System.nanoTime()).as("node b never joined: " + Files.readString(dir.resolve("node-b.out"))).isLessThan(deadline);
      Thread.sleep(200);
    }
  }
}
