package dev.weft.launch;

import dev.weft.comm.RunToken;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecIO;
import dev.weft.testing.NetHosts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fixed-size run across two real hosts (network namespaces), the torchrun way: {@code weft train SPEC --nnodes 2
 * --node-rank I --master-addr HOST0 --nproc-per-node K} on each, no address flags (each host finds its own).
 */
@Tag("hosts")
@Tag("slow")
class MultiHostProcessTest {
  @TempDir Path dir;

  @BeforeAll
  static void needsNamespaces() { assumeTrue(NetHosts.available(), NetHosts.unavailableReason()); }

  private Path spec(int perHost, int steps) {
    Path spec = dir.resolve("tiny.yaml");
    SpecIO.write(Trainer.model("gpt").name("tiny-hosts").set("model.config.layers", 1).set("model.config.hidden", 32)
        .set("model.config.heads", 2).seqLen(16).globalBatch(8).steps(steps).dataParallel(2 * perHost).set("train.logEvery", 1)
        .timeout(Duration.ofSeconds(90)).toSpec(), spec);
    return spec;
  }

  private static final String TOKEN = RunToken.generate();

  /** {@code weft train} on host {@code i} of 2, output in host-I.log. */
  private Process host(NetHosts hosts, int i, Path spec, int perHost) {
    return hosts.startWeft(i, List.of("train", spec.toString(), "--nnodes", "2", "--node-rank", String.valueOf(i), "--master-addr",
        hosts.address(0), "--master-port", "29511", "--nproc-per-node", String.valueOf(perHost), "--run-dir",
        dir.resolve("run-" + i).toString()), Map.of(RunToken.ENV, TOKEN), dir.resolve("host-" + i + ".log")); // the same on both
  }

  private String log(int i) throws Exception { return Files.readString(dir.resolve("host-" + i + ".log")); }

  private String logs() { return NetHosts.tail(dir.resolve("host-0.log"), 25) + "\n" + NetHosts.tail(dir.resolve("host-1.log"), 25); }

  /** Two processes per host (one per host is what the SIGTERM and partition cases below run to step 3). */
  @Test
  void twoHostsTrainOneModelAndAgree() throws Exception {
    int perHost = 2;
    Path spec = spec(perHost, 6);
    try (NetHosts hosts = NetHosts.create(2)) {
      for (int i = 0; i < 2; i++) host(hosts, i, spec, perHost);
      List<Integer> codes = hosts.awaitAll(Duration.ofMinutes(4));
      assertThat(codes).as(logs()).containsExactly(0, 0);
      var s = MetricsJson.readSummary(dir.resolve("run-0"));
      assertThat(s.status()).isEqualTo("completed");
      assertThat(s.worldSize()).isEqualTo(2 * perHost);
      assertThat(s.steps()).isEqualTo(6);
      assertThat(s.replicasConsistent()).as("replicas_consistent").isTrue();
      // host 1 found its own address (its ranks bind Gloo there; the master's address does not exist on host 1)
      assertThat(log(1)).contains("host 1 of 2 (" + hosts.address(1));
    }
  }

  @Test
  void aRankKilledOnOneHostStopsBothHostsAndIsNamed() throws Exception {
    Path spec = spec(2, 100_000);
    try (NetHosts hosts = NetHosts.create(2)) {
      host(hosts, 0, spec, 2);
      Process host1 = host(hosts, 1, spec, 2);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      while (!log(0).contains("step 2/") && System.nanoTime() < deadline) Thread.sleep(200);
      assertThat(log(0)).as(logs()).contains("step 2/");
      List<ProcessHandle> ranks = host1.children().filter(ProcessHandle::isAlive).toList();
      assertThat(ranks).as("host 1 runs its two ranks").hasSize(2);
      ProcessHandle victim = ranks.get(0);
      String rank = globalRank(victim);
      new ProcessBuilder("kill", "-KILL", String.valueOf(victim.pid())).start().waitFor(10, TimeUnit.SECONDS);
      List<Integer> codes = hosts.awaitAll(Duration.ofMinutes(3));
      assertThat(codes).as(logs()).doesNotContain(0, -1);
      assertThat(log(1)).contains("training failed: rank " + rank + " was killed by SIGKILL");
      for (ProcessHandle r : ranks) assertThat(r.isAlive()).as("rank left behind").isFalse();
    }
  }

  /**
   * SIGTERM to host 1's {@code weft train} of a fixed 2-host run (checkpoint.every 1000): it passes it to its ranks,
   * every rank of both hosts stops after the same step with an emergency checkpoint, and both hosts exit 0.
   */
  @Test
  void sigtermToOneHostSavesOnBothAndBothExitZero() throws Exception {
    Path spec = spec(1, 100_000);
    Path ckpt = dir.resolve("ckpt");
    try (NetHosts hosts = NetHosts.create(2)) {
      Process host1 = null;
      for (int i = 0; i < 2; i++) {
        host1 = hosts.startWeft(i, List.of("train", spec.toString(), "--nnodes", "2", "--node-rank", String.valueOf(i), "--master-addr",
            hosts.address(0), "--master-port", "29512", "--nproc-per-node", "1", "--run-dir", dir.resolve("run-" + i).toString(),
            "--set", "checkpoint.every=1000", "--set", "checkpoint.dir=" + ckpt), Map.of(RunToken.ENV, TOKEN),
            dir.resolve("host-" + i + ".log"));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      while (!log(0).contains("step 3/") && System.nanoTime() < deadline) Thread.sleep(200);
      assertThat(log(0)).as(logs()).contains("step 3/");
      long pid = host1.pid(); // ip netns exec execs java: this is host 1's weft train
      long t0 = System.nanoTime();
      new ProcessBuilder("kill", "-TERM", String.valueOf(pid)).start().waitFor(10, TimeUnit.SECONDS);
      List<Integer> codes = hosts.awaitAll(Duration.ofMinutes(3));
      double exitS = (System.nanoTime() - t0) / 1e9;
      assertThat(codes).as(logs()).containsExactly(0, 0);
      var s = MetricsJson.readSummary(dir.resolve("run-0"));
      assertThat(s.status()).isEqualTo("preempted");
      assertThat(ckpt.resolve(dev.weft.checkpoint.CheckpointLayout.stepDirName(s.steps()))).isDirectory();
      assertThat(log(1)).contains("SIGTERM: the workers save an emergency checkpoint");
      System.out.printf("fixed 2 hosts: SIGTERM to host 1 → both exit 0 after %.1f s, checkpoint of step %d%n", exitS, s.steps());
    }
  }

  /**
   * The link between the hosts is cut mid-run: without a deadline both sides would wait in a collective until the
   * spec's 90 s timeout. With the failure watch, host 0 declares host 1 lost after elastic.failureTimeoutSeconds (5 s)
   * of silence and host 1's beat misses its 10 s deadline: both exit non-zero with one line naming the cause.
   */
  @Test
  void aPartitionEndsBothHostsWithinTheFailureTimeoutPlusTenSeconds() throws Exception {
    Path spec = spec(1, 100_000);
    try (NetHosts hosts = NetHosts.create(2)) {
      Process host0 = host(hosts, 0, spec, 1);
      Process host1 = host(hosts, 1, spec, 1);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      while (!log(0).contains("step 3/") && System.nanoTime() < deadline) Thread.sleep(200);
      assertThat(log(0)).as(logs()).contains("step 3/");
      long cutAt = System.nanoTime();
      hosts.cut(1);
      double[] exitedAfter = new double[2];
      List<Process> both = List.of(host0, host1);
      for (int i = 0; i < 2; i++) {
        int h = i;
        both.get(i).onExit().thenRun(() -> exitedAfter[h] = (System.nanoTime() - cutAt) / 1e9);
      }
      for (int i = 0; i < 2; i++) {
        assertThat(both.get(i).waitFor(60, TimeUnit.SECONDS)).as("host " + i + " stops by itself\n" + logs()).isTrue();
      }
      Thread.sleep(100); // the exit callbacks
      System.out.printf("MultiHostProcessTest partition: host 0 exited %.1f s, host 1 %.1f s after the cut (target 15 s)%n",
          exitedAfter[0], exitedAfter[1]);
      assertThat(host0.exitValue()).as(logs()).isNotZero();
      assertThat(host1.exitValue()).as(logs()).isNotZero();
      assertThat(log(0)).as(logs()).contains("training failed: rank 0").contains("rank 1 on host 1 sent no heartbeat for");
      assertThat(log(1)).as(logs()).contains("training failed: rank 1").contains("did not answer").contains("cut off");
      double lastExitS = Math.max(exitedAfter[0], exitedAfter[1]);
      assertThat(lastExitS).as("both sides gone (target: failureTimeoutSeconds + 10 s; generous under load)").isLessThan(45);
    }
  }

  /** WEFT_RANK from a rank process's environment. */
  private static String globalRank(ProcessHandle p) throws Exception {
    String env = new String(Files.readAllBytes(Path.of("/proc", String.valueOf(p.pid()), "environ")), StandardCharsets.UTF_8);
    for (String kv : env.split("\0")) if (kv.startsWith("WEFT_RANK=")) return kv.substring("WEFT_RANK=".length());
    throw new AssertionError("no WEFT_RANK in rank " + p.pid());
  }
}
