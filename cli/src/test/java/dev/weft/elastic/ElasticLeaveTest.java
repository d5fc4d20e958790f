package dev.weft.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.comm.RunToken;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecIO;
import dev.weft.testing.NetHosts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three elastic agents on three namespaced hosts ({@code --nnodes 2:3}, c10d store on host 0), {@code checkpoint.every:
 * 1000}; SIGTERM to host 2's agent at a random step of a three-node generation: it announces a planned leave, every
 * worker saves an emergency checkpoint of the same step, host 2 exits 0, and hosts 0 and 1 re-form at once from that
 * checkpoint and finish every step once, with {@code restarts} still 0.
 */
@Tag("hosts")
@Tag("slow")
class ElasticLeaveTest {
  private static final int STEPS = 30;
  private static final String TOKEN = RunToken.generate();
  @TempDir Path dir;
  private NetHosts hosts;

  @BeforeAll
  static void needsNamespaces() { assumeTrue(NetHosts.available(), NetHosts.unavailableReason()); }

  @AfterEach
  void cleanUp() { if (hosts != null) hosts.close(); }

  /** Global batch 24 in micro-batches of 4: 2 or 3 nodes (dp 2 or 3) keep it. */
  private Path spec() {
    Path f = dir.resolve("tiny.yaml");
    SpecIO.write(Trainer.model("gpt").name("leave").set("model.config.layers", 1).set("model.config.hidden", 32)
        .set("model.config.heads", 2).seqLen(16).globalBatch(24).steps(STEPS).warmup(2).dataParallel(3)
        .set("parallel.microBatches", 2).set("train.logEvery", 1).set("elastic.standby", 0).set("elastic.failureTimeoutSeconds", 20).set("checkpoint.every", 1000)
        .set("checkpoint.dir", dir.resolve("ckpt").toString()).toSpec(), f);
    return f;
  }

  private Process agent(int i, Path spec) {
    return hosts.startWeft(i, List.of("train", spec.toString(), "--nnodes", "2:3", "--nproc-per-node", "1", "--rdzv-id", "leave",
        "--run-dir", dir.resolve("run").toString(), "--rdzv-endpoint", hosts.address(0) + ":29400", "--join-window", "5"),
        Map.of(RunToken.ENV, TOKEN), log(i));
  }

  private Path log(int i) { return dir.resolve("host-" + i + ".log"); }

  private String logs() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < hosts.size(); i++) {
      if (Files.isRegularFile(log(i))) sb.append("--- host ").append(i).append('\n').append(NetHosts.tail(log(i), 40)).append('\n');
    }
    return sb.toString();
  }

  private List<JsonNode> metrics() throws IOException { return ElasticProcessTest.metricsLines(dir.resolve("run/metrics.jsonl")); }

  @Test
  void sigtermToOneAgentOfThreeIsAPlannedLeaveTheOthersGoOn() throws Exception {
    hosts = NetHosts.create(3);
    Path spec = spec();
    List<Process> agents = List.of(agent(0, spec), agent(1, spec), agent(2, spec));
    long at = ThreadLocalRandom.current().nextLong(3, 9);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(480);
    while (true) { // a step of a three-node generation
      List<JsonNode> m = metrics();
      JsonNode last = m.isEmpty() ? null : m.get(m.size() - 1);
      if (last != null && last.get("world_size").asInt() == 3 && last.get("step").asLong() >= at) break;
      for (Process a : agents) if (!a.isAlive()) throw new AssertionError("an agent ended early:\n" + logs());
      assertThat(System.nanoTime()).as("step " + at + " on three nodes in 480 s\n" + logs()).isLessThan(deadline);
      Thread.sleep(50);
    }
    long t0 = System.nanoTime();
    new ProcessBuilder("kill", "-TERM", String.valueOf(agents.get(2).pid())).start().waitFor(10, TimeUnit.SECONDS);
    assertThat(agents.get(2).waitFor(120, TimeUnit.SECONDS)).as("the leaving agent exits\n" + logs()).isTrue();
    double leftS = (System.nanoTime() - t0) / 1e9;
    assertThat(agents.get(2).exitValue()).as(logs()).isZero();
    // whichever node held rank 0 until the leave, the leaving one says it left, not the run's summary
    assertThat(Files.readString(log(2))).contains("leaving the run").contains("weft: done — left the run after generation ");
    for (int i = 0; i < 2; i++) {
      assertThat(agents.get(i).waitFor(300, TimeUnit.SECONDS)).as("survivor " + i + " finishes\n" + logs()).isTrue();
      assertThat(agents.get(i).exitValue()).as(logs()).isZero();
    }
    JsonNode s = MetricsJson.MAPPER.readTree(dir.resolve("run/summary.json").toFile());
    assertThat(s.get("status").asText()).isEqualTo("completed");
    assertThat(s.get("restarts").asInt()).as("a planned leave is no failure").isZero();
    assertThat(metrics().stream().mapToLong(n -> n.get("step").asLong()).toArray()).as("every step once")
        .containsExactly(LongStream.rangeClosed(1, STEPS).toArray());
    JsonNode after = null;
    for (JsonNode g : s.get("elastic").get("generations")) if ("leave".equals(g.path("cause").asText())) after = g;
    assertThat(after).as("a generation after the leave: " + s.get("elastic")).isNotNull();
    assertThat(after.get("world_size").asInt()).isEqualTo(2);
    String survivor = Files.readString(log(0)) + Files.readString(log(1));
    assertThat(survivor).contains("after its emergency checkpoint").contains("resumed from");
    System.out.printf("ElasticLeaveTest: SIGTERM at step >= %d, leaving agent exited 0 after %.1f s; next generation %s%n", at, leftS,
        after);
  }
}
