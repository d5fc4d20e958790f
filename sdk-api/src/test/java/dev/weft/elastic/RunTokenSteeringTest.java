package dev.weft.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.comm.Rendezvous;
import dev.weft.comm.RunToken;
import dev.weft.launch.FreePort;
import dev.weft.metrics.StepMetrics;
import dev.weft.spec.Endpoint;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import dev.weft.train.StepListener;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.chrono.Milliseconds;
import org.bytedeco.pytorch.TCPStore;
import org.bytedeco.pytorch.TCPStoreOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31 item 5: a raw store client (no token) set {@code stop_at} and ended a generation. With a token it cannot;
 * without one every agent warns; {@code weft train --nnodes} makes one for the run, and a node without it is told so.
 */
class RunTokenSteeringTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final List<Object> KEEP = new ArrayList<>(); // native stores live as long as the JVM
  @TempDir Path dir;

  private static final StepListener NONE = new StepListener() {
    @Override public void onStep(StepMetrics m, long totalSteps) {}
  };

  /** A client of the store that knows nothing of Weft's prefixes: what any local process can do. */
  private static TCPStore raw(int port) {
    TCPStoreOptions o = new TCPStoreOptions();
    o.port((short) port).isServer(false).waitWorkers(false).timeout(new Milliseconds(DEADLINE.toMillis()));
    TCPStore s = new TCPStore("127.0.0.1", o);
    KEEP.add(s);
    return s;
  }

  /**
   * A raw set that the store has applied when this returns: libtorch's set gets no answer, so the worker's read on its
   * own connection could otherwise reach the store first (it did under load: the worker saw no stop_at). The check
   * on the same connection is answered only after the set before it.
   */
  private static void setApplied(TCPStore s, String key, String value) {
    s.set(key, value);
    s.check(new org.bytedeco.pytorch.StringVector(key));
  }

  private static TrainingSpec spec() { return Trainer.model("gpt").name("tok").globalBatch(4).steps(2).elastic(1, 2).toSpec(); }

  /** The generation-0 worker of run {@code t}, as an agent starts it. */
  private static StepListener worker(int port, String token) {
    return ElasticWorker.wrap(NONE, 0, Map.of(ElasticWorker.ENV_STORE, "127.0.0.1:" + port, ElasticWorker.ENV_BACKEND, "c10d",
        ElasticWorker.ENV_PREFIX, "t/" + RendezvousRound.key(0, ""), ElasticWorker.ENV_RUN_PREFIX, "t/", RunToken.ENV, token),
        spec().elastic());
  }

  private static RendezvousBackend.Opened host(int port, String token) {
    RendezvousBackend.Opened o = RendezvousBackend.C10D.open(new Endpoint("127.0.0.1", port), true, token, false, DEADLINE, DEADLINE,
        line -> {});
    KEEP.add(o);
    return o;
  }

  @Test
  void withATokenARawSetOfStopAtCannotEndAGeneration() {
    int port = FreePort.find();
    RendezvousBackend.Opened agent = host(port, RunToken.generate());
    StepListener w = worker(port, agent.token());
    TCPStore stranger = raw(port);
    setApplied(stranger, "elastic/t/" + RendezvousRound.key(0, "") + WorkerKeys.STOP_AT, "0");
    setApplied(stranger, "elastic/t/r/0/stop_at", "0");
    w.atStepBoundary(0, 5); // no Rejoin: the stranger's key is outside the run's
    agent.kv().under("t/" + RendezvousRound.key(0, "")).setIfAbsent(WorkerKeys.STOP_AT, "3"); // the agents' own agreement does
    assertThatThrownBy(() -> w.atStepBoundary(0, 5)).isInstanceOf(ElasticWorker.Rejoin.class);
  }

  @Test
  void withoutATokenTheSameRawSetEndsIt() { // why every agent without one warns
    int port = FreePort.find();
    host(port, "");
    StepListener w = worker(port, "");
    setApplied(raw(port), "elastic/t/" + RendezvousRound.key(0, "") + WorkerKeys.STOP_AT, "0");
    assertThatThrownBy(() -> w.atStepBoundary(0, 5)).isInstanceOf(ElasticWorker.Rejoin.class);
  }

  @Test
  void aNodeWithoutTheTokenIsRefusedInOneLine() {
    int port = FreePort.find();
    host(port, RunToken.generate());
    assertThatThrownBy(() -> Rendezvous.connect("127.0.0.1", port, 1, false, DEADLINE, "127.0.0.1", ""))
        .isInstanceOf(SpecException.class).hasMessageStartingWith("WEFT_RUN_TOKEN: the rendezvous store at 127.0.0.1:" + port)
        .hasMessageContaining("set WEFT_RUN_TOKEN on this node").hasMessageNotContaining("\n");
  }

  @Test
  void aNodeWithAnotherTokenIsRefusedAndSoIsOneWithATokenAtARunWithout() {
    int port = FreePort.find();
    host(port, RunToken.generate());
    assertThatThrownBy(() -> Rendezvous.connect("127.0.0.1", port, 1, false, DEADLINE, "127.0.0.1", RunToken.generate()))
        .isInstanceOf(SpecException.class).hasMessageContaining("belongs to a run with another run token").hasMessageNotContaining("\n");
    int none = FreePort.find();
    host(none, "");
    assertThatThrownBy(() -> Rendezvous.connect("127.0.0.1", none, 1, false, DEADLINE, "127.0.0.1", RunToken.generate()))
        .isInstanceOf(SpecException.class).hasMessageContaining("belongs to a run without a run token").hasMessageNotContaining("\n");
  }

  /**
   * docs/security.md, what a tokenless store client can do: delete the mark, after which a node without the token is no
   * longer refused at the store, yet still sees none of the run's keys and cannot end its generation (its run dir's
   * lock names the token: ForeignRunProcessTest); or overwrite the mark, which only keeps the run's own late nodes out.
   */
  @Test
  void aRawClientThatDeletesOrRewritesTheMarkCannotReachTheRun() {
    int port = FreePort.find();
    RendezvousBackend.Opened agent = host(port, RunToken.generate());
    agent.kv().under("t/").setIfAbsent("checkpoint-dir", "/runs/a/checkpoints");
    StepListener w = worker(port, agent.token());
    TCPStore stranger = raw(port);
    assertThat(stranger.deleteKey(RunToken.MARK_KEY)).isTrue();
    RendezvousBackend.Opened tokenless = RendezvousBackend.C10D.open(new Endpoint("127.0.0.1", port), false, "", false, DEADLINE,
        DEADLINE, line -> {});
    KEEP.add(tokenless);
    assertThat(tokenless.kv().under("t/").getOrNull("checkpoint-dir")).isNull(); // the run's keys stay out of its sight
    assertThat(tokenless.kv().under("t/").setIfAbsent("checkpoint-dir", "/planted")).isEqualTo("/planted"); // its own, beside
    tokenless.kv().under("t/" + RendezvousRound.key(0, "")).setIfAbsent(WorkerKeys.STOP_AT, "0");
    w.atStepBoundary(0, 5); // the run goes on
    assertThat(agent.kv().under("t/").getOrNull("checkpoint-dir")).isEqualTo("/runs/a/checkpoints");

    setApplied(stranger, RunToken.MARK_KEY, "sha256:0000000000000000"); // a rewritten mark keeps the run's own late nodes out
    assertThatThrownBy(() -> Rendezvous.connect("127.0.0.1", port, 1, false, DEADLINE, "127.0.0.1", agent.token()))
        .isInstanceOf(SpecException.class).hasMessageContaining("another run token");
  }

  /**
   * docs/security.md: the store's mark a raw client reads is the token's digest ({@code sha256:} and 16 hex digits), never
   * the token, and the run's own keys are where only the token leads ({@code run/TOKEN/...}): a raw client without it
   * reads nothing under the names the run uses.
   */
  @Test
  void aRawClientReadsTheTokensDigestAndNoneOfTheRunsKeys() {
    int port = FreePort.find();
    RendezvousBackend.Opened agent = host(port, RunToken.generate());
    agent.kv().under("t/").setIfAbsent("checkpoint-dir", "/runs/a/checkpoints");
    TCPStore stranger = raw(port);
    String mark = text(stranger.get(RunToken.MARK_KEY));
    assertThat(mark).matches("sha256:[0-9a-f]{16}").isEqualTo(RunToken.identity(agent.token())).doesNotContain(agent.token());
    assertThat(stranger.check(new org.bytedeco.pytorch.StringVector("elastic/t/checkpoint-dir"))).isFalse();
    assertThat(stranger.check(new org.bytedeco.pytorch.StringVector("t/checkpoint-dir"))).isFalse();
    assertThat(text(stranger.get(RunToken.keyPrefix(agent.token()) + "elastic/t/checkpoint-dir"))).as("with the token it is there")
        .isEqualTo("/runs/a/checkpoints");
  }

  private static String text(org.bytedeco.pytorch.ByteVector v) {
    byte[] b = new byte[(int) v.size()];
    for (int i = 0; i < b.length; i++) b[i] = v.get(i);
    return new String(b, StandardCharsets.UTF_8);
  }

  /** An agent of a 2-node run that never gets its second node: it opens the store, says what it says, and gives up. */
  private String agentOutput(boolean mint) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream console = new PrintStream(out, true, StandardCharsets.UTF_8);
    ElasticOptions o = new ElasticOptions(2, 2, 1, new Endpoint("127.0.0.1", FreePort.find()), "t", Duration.ofMillis(200),
        Duration.ofSeconds(10), Duration.ofSeconds(1), 0, Duration.ofSeconds(2), RendezvousBackend.C10D);
    ElasticAgent agent = new ElasticAgent(o, console);
    try {
      (mint ? agent.mintTokenIfNone() : agent).run(Trainer.model("gpt").name("tok").globalBatch(4).set("parallel.microBatches", 2)
              .steps(2).toSpec(),
          dir.resolve(mint ? "minted" : "none"));
    } catch (RuntimeException expected) {
      console.println("ended: " + expected.getMessage()); // the rendezvous times out without a second node
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void anAgentWithoutATokenWarnsInOneLine() {
    String out = agentOutput(false);
    assertThat(out.lines().filter(l -> l.contains("warning: no WEFT_RUN_TOKEN"))).as(out).hasSize(1)
        .allSatisfy(l -> assertThat(l).contains("can read and change this run's keys", "docs/security.md"));
  }

  @Test
  void weftTrainNnodesMakesATokenAndPrintsItForTheOtherNodes() {
    String out = agentOutput(true);
    assertThat(out).as(out).containsPattern("start the other nodes with WEFT_RUN_TOKEN=[0-9a-f]{32} in their environment")
        .doesNotContain("warning: no WEFT_RUN_TOKEN");
  }
}
