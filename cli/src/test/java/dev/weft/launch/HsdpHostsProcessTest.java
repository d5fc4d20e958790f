package dev.weft.launch;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.comm.RunToken;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecIO;
import dev.weft.testing.NetHosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HSDP across two real hosts (network namespaces, two ranks each): ZeRO-3 sharded within each host, the gradient
 * shards all-reduced across them. It trains like dp4 ZeRO-0, and what crosses between the hosts per step is the
 * replicate all-reduce: counted by the ranks (metrics.jsonl) and on the hosts' cables.
 */
@Tag("hosts")
@Tag("slow")
class HsdpHostsProcessTest {
  private static final int STEPS = 10;
  private static final int FROM = 2; // cable bytes are sampled between the logs of steps FROM and STEPS - 1
  private static final int TO = STEPS - 1;

  @TempDir Path dir;

  @BeforeAll
  static void needsNamespaces() { assumeTrue(NetHosts.available(), NetHosts.unavailableReason()); }

  private static Trainer tiny() {
    return Trainer.model("gpt").name("hsdp-hosts").set("model.config.layers", 1).set("model.config.hidden", 64)
        .set("model.config.heads", 2).seqLen(16).globalBatch(8).steps(STEPS).warmup(2).lr(3e-3).seed(41).dataParallel(4)
        .set("train.logEvery", 1).timeout(Duration.ofSeconds(90));
  }

  private String log(int i) throws Exception { return Files.readString(dir.resolve("host-" + i + ".log")); }

  @Test
  void shardWithinHostsReplicateAcrossMatchesDp4ZeroZeroAndOnlyTheReplicaAllReduceCrosses() throws Exception {
    Path spec = dir.resolve("hsdp.yaml");
    SpecIO.write(tiny().zero(3).zeroShardSize(2).toSpec(), spec);
    String token = RunToken.generate();
    List<Long> cable = new ArrayList<>();
    try (NetHosts hosts = NetHosts.create(2)) {
      for (int i = 0; i < 2; i++) {
        hosts.startWeft(i, List.of("train", spec.toString(), "--nnodes", "2", "--node-rank", String.valueOf(i), "--master-addr",
            hosts.address(0), "--master-port", "29521", "--nproc-per-node", "2", "--run-dir", dir.resolve("run-" + i).toString()),
            Map.of(RunToken.ENV, token), dir.resolve("host-" + i + ".log"));
      }
      long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
      for (int step : List.of(FROM, TO)) {
        while (!log(0).contains("step " + step + "/") && System.nanoTime() < deadline) Thread.sleep(10);
        cable.add(hosts.sentBytes(0) + hosts.sentBytes(1));
      }
      List<Integer> codes = hosts.awaitAll(Duration.ofMinutes(3));
      assertThat(codes).as(NetHosts.tail(dir.resolve("host-0.log"), 25) + "\n" + NetHosts.tail(dir.resolve("host-1.log"), 25))
          .containsExactly(0, 0);
    }
    // the shard groups are each host's two ranks, the replicate groups pair the hosts
    assertThat(log(0)).contains("shards within dpShard[0,1], replicated across dpReplicate[0,2]");
    assertThat(log(1)).contains("shards within dpShard[2,3], replicated across dpReplicate[1,3]");

    Path run = dir.resolve("run-0");
    var summary = MetricsJson.readSummary(run);
    assertThat(summary.replicasConsistent()).isTrue();
    List<Double> ref = tiny().runDir(dir.resolve("dp4-zero0")).fit().losses(); // threaded ranks: the same arithmetic
    List<Double> losses = new ArrayList<>();
    double replicatedMib = 0;
    for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) {
      JsonNode m = MetricsJson.MAPPER.readTree(line);
      losses.add(m.get("loss").asDouble());
      replicatedMib = m.get("zero").get("replicated_mib").asDouble();
    }
    assertClose(losses, ref, 1e-4);

    // each rank's gradient shard is half the padded fp32 parameters; a 2-rank all-reduce sends it once per rank
    double paramBytes = 4.0 * summary.parameters();
    double shardBytes = replicatedMib * (1 << 20);
    assertThat(shardBytes).isBetween(paramBytes / 2, paramBytes / 2 + 1024);
    double expected = 4 * shardBytes;
    double measured = (cable.get(1) - cable.get(0)) / (double) (TO - FROM);
    System.out.printf("HSDP 2x2 on 2 hosts: %.0f B/step crossed the hosts' cables, replicate all-reduce %.0f B/step (%.2fx)%n",
        measured, expected, measured / expected);
    // TCP/IP headers, the step's scalar all-reduces and heartbeats on top; a step sampled late adds at most one more
    assertThat(measured).isBetween(0.75 * expected, 1.6 * expected);
  }
}
