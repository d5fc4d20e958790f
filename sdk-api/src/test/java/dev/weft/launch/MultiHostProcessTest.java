package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecIO;
import dev.weft.testing.NetHosts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
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

  @ParameterizedTest(name = "2 hosts x {0} process(es)")
  @ValueSource(ints = {1, 2})
  void twoHostsTrainOneModelAndAgree(int perHost) throws Exception {
    Path spec = dir.resolve("tiny.yaml");
    SpecIO.write(Trainer.model("gpt").name("tiny-hosts").set("model.config.layers", 1).set("model.config.hidden", 32)
        .set("model.config.heads", 2).seqLen(16).globalBatch(8).steps(6).dataParallel(2 * perHost)
        .timeout(Duration.ofSeconds(90)).toSpec(), spec);
    try (NetHosts hosts = NetHosts.create(2)) {
      List<Path> logs = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        Path log = dir.resolve("host-" + i + ".log");
        logs.add(log);
        hosts.startWeft(i, List.of("train", spec.toString(), "--nnodes", "2", "--node-rank", String.valueOf(i), "--master-addr",
            hosts.address(0), "--master-port", "29511", "--nproc-per-node", String.valueOf(perHost), "--run-dir",
            dir.resolve("run-" + i).toString()), Map.of(), log);
      }
      List<Integer> codes = hosts.awaitAll(Duration.ofMinutes(4));
      String out = logs.stream().map(l -> NetHosts.tail(l, 25)).collect(Collectors.joining("\n"));
      assertThat(codes).as(out).containsExactly(0, 0);
      var s = MetricsJson.readSummary(dir.resolve("run-0"));
      assertThat(s.status()).isEqualTo("completed");
      assertThat(s.worldSize()).isEqualTo(2 * perHost);
      assertThat(s.steps()).isEqualTo(6);
      assertThat(s.replicasConsistent()).as("replicas_consistent").isTrue();
      // each host's ranks bound to that host's own address (Gloo would fail to bind the master's elsewhere)
      assertThat(out).contains("host 1 of 2 (" + hosts.address(1));
    }
  }
}
