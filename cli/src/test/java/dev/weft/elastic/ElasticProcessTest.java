package dev.weft.elastic;

import dev.weft.testing.StartedProcesses;
import dev.weft.launch.JavaCommand;
import dev.weft.comm.RunToken;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.launch.FreePort;
import dev.weft.launch.LocalLauncher;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Real agents and workers on 127.0.0.1: kill a worker, kill a node, grow, stop a rank, start workers before the host. */
@Tag("slow")
class ElasticProcessTest {
  @TempDir Path dir;
  @RegisterExtension final StartedProcesses started = new StartedProcesses();
  private final int port = FreePort.find();

  private Trainer tiny(int steps) {
    return Trainer.model("gpt").name("tiny-elastic").set("model.config.layers", 2).set("model.config.hidden", 32)
        .set("model.config.heads", 2).seqLen(16).globalBatch(8).steps(steps).warmup(2).dataParallel(2)
        .set("train.logEvery", 1).set("elastic.failureTimeoutSeconds", 5).timeout(Duration.ofSeconds(30));
  }

  private Path spec(int steps) {
    Path f = dir.resolve("tiny.yaml");
    SpecIO.write(tiny(steps).toSpec(), f);
    return f;
  }

  private static final String TOKEN = RunToken.generate();

  /** An agent JVM: {@code weft train SPEC --nnodes 1:2 ...}, output in node-N.log. */
  private Process agent(Path spec, String node) throws IOException {
    List<String> cmd = JavaCommand.of(List.of("dev.weft.cli.WeftMain", "train", spec.toString(), "--nnodes", "1:2",
        "--rdzv-endpoint", "127.0.0.1:" + port, "--rdzv-id", "t", "--run-dir", dir.resolve("run").toString(), "--join-window", "1"));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve(node + ".log").toFile());
    pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
    pb.environment().put(RunToken.ENV, TOKEN); // both agents of the run (without one, the hosting agent would make its own)
    Process p = pb.start();
    started.add(p);
    return p;
  }


  private List<JsonNode> metrics() throws IOException { return metricsLines(dir.resolve("run/metrics.jsonl")); }

  /** The complete lines of a metrics.jsonl that may be being written. */
  static List<JsonNode> metricsLines(Path f) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    if (!Files.isRegularFile(f)) return out;
    for (String l : Files.readAllLines(f)) {
      try {
        if (!l.isBlank()) out.add(MetricsJson.MAPPER.readTree(l));
      } catch (IOException partial) {
        // the line being written
      }
    }
    return out;
  }

  private void awaitStep(long step) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240); // four JVMs starting on a crowded machine
    while (System.nanoTime() < deadline) {
      List<JsonNode> m = metrics();
      if (!m.isEmpty() && m.get(m.size() - 1).get("step").asLong() >= step) return;
      Thread.sleep(100);
    }
    throw new AssertionError("step " + step + " not reached in 240 s:\n" + logs());
  }

  private String logs() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (String n : List.of("node-a", "node-b")) {
      Path f = dir.resolve(n + ".log");
      if (Files.isRegularFile(f)) sb.append("--- ").append(n).append('\n').append(Files.readString(f));
    }
    return sb.toString();
  }

  /** The worker now running this node's rank (the agent says which pid runs which rank; its standbys are children too). */
  private ProcessHandle worker(String node) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      List<Long> pids = pids(node, RUNS_IN);
      if (!pids.isEmpty()) {
        var p = ProcessHandle.of(pids.get(pids.size() - 1));
        if (p.isPresent() && p.get().isAlive()) return p.get();
      }
      Thread.sleep(100);
    }
    throw new AssertionError(node + " started no worker:\n" + logs());
  }

  private static final java.util.regex.Pattern RUNS_IN = java.util.regex.Pattern.compile("rank \\d+ runs in pid (\\d+)");
  private static final java.util.regex.Pattern STANDBY_STARTED =
      java.util.regex.Pattern.compile("warm standby worker started \\(pid (\\d+)\\)");

  /** Every pid the node's log names with {@code pattern}, in order. */
  private List<Long> pids(String node, java.util.regex.Pattern pattern) throws IOException {
    Path f = dir.resolve(node + ".log");
    List<Long> out = new ArrayList<>();
    if (!Files.isRegularFile(f)) return out;
    var m = pattern.matcher(Files.readString(f));
    while (m.find()) out.add(Long.parseLong(m.group(1)));
    return out;
  }

  private static void signal(String sig, ProcessHandle p) throws Exception {
    new ProcessBuilder("kill", "-" + sig, String.valueOf(p.pid())).start().waitFor(5, TimeUnit.SECONDS);
  }

  private JsonNode finish(Process... agents) throws Exception {
    for (Process a : agents) {
      assertThat(a.waitFor(150, TimeUnit.SECONDS)).as("agent finished\n" + Files.readString(dir.resolve("node-a.log"))
          + (Files.isRegularFile(dir.resolve("node-b.log")) ? "--- node b\n" + Files.readString(dir.resolve("node-b.log")) : "")).isTrue();
      assertThat(a.exitValue()).as(Files.readString(dir.resolve("node-a.log"))).isZero();
    }
    return MetricsJson.MAPPER.readTree(dir.resolve("run/summary.json").toFile());
  }

  private static long[] steps(List<JsonNode> m) { return m.stream().mapToLong(n -> n.get("step").asLong()).toArray(); }

  @Test
  void aWorkerKilledWithSigkillIsReplacedAndTheLossesMatchAnUninterruptedRun() throws Exception {
    int total = 24;
    Path spec = spec(total);
    Process a = agent(spec, "node-a");
    Thread.sleep(300);
    Process b = agent(spec, "node-b");
    awaitStep(10);
    ProcessHandle killed = worker("node-b");
    List<Long> standbys = pids("node-b", STANDBY_STARTED);
    signal("KILL", killed);
    JsonNode s = finish(a, b);
    // the rank was taken over by a standby that was started (and warmed) before the kill, not by a new JVM
    List<Long> ran = pids("node-b", RUNS_IN);
    long successor = ran.get(ran.indexOf(killed.pid()) + 1); // node b's worker in the generation after the kill
    assertThat(successor).isNotEqualTo(killed.pid());
    assertThat(standbys).as(logs()).contains(successor);
    assertThat(Files.readString(dir.resolve("node-b.log"))).contains("runs in pid " + successor + " (a warm standby)");
    assertThat(s.get("status").asText()).isEqualTo("completed");
    assertThat(s.get("restarts").asInt()).isGreaterThanOrEqualTo(1);
    List<JsonNode> m = metrics();
    assertThat(steps(m)).containsExactly(java.util.stream.LongStream.rangeClosed(1, total).toArray());
    JsonNode last = s.get("elastic").get("generations").get(s.get("elastic").get("generations").size() - 1);
    assertThat(last.get("world_size").asInt()).isEqualTo(2);
    assertThat(last.get("recovery_s").get("total_s").asDouble()).isPositive();
    JsonNode afterKill = null; // (on a crowded machine a scale-up generation may follow it)
    for (JsonNode g : s.get("elastic").get("generations")) if (afterKill == null && g.path("cause").asText().equals("failure")) afterKill = g;
    assertThat(afterKill).as(s.toString()).isNotNull();
    assertThat(afterKill.get("standby_ranks").asInt()).as("ranks handed to standbys").isEqualTo(afterKill.get("world_size").asInt());
    long resumedAt = last.get("first_step").asLong();
    List<Double> reference = tiny(total).runDir(dir.resolve("reference")).fit().losses();
    for (JsonNode n : m) {
      long step = n.get("step").asLong();
      if (step < resumedAt) continue;
      double want = reference.get((int) step - 1);
      assertThat(Math.abs(n.get("loss").asDouble() - want) / Math.abs(want)).as("step " + step).isLessThan(1e-4);
    }
  }

  @Test
  void aKilledNodeLeavesTheOtherTrainingAtDpOneWithTheSameGlobalBatch() throws Exception {
    Path spec = spec(24);
    Process a = agent(spec, "node-a");
    // node a must host the rendezvous store: losing the store's host ends a run by design (no fail-over)
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.readString(dir.resolve("node-a.log")).contains("hosting the rendezvous store") && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    Process b = agent(spec, "node-b");
    awaitStep(8);
    b.descendants().forEach(ProcessHandle::destroyForcibly); // the whole node: agent and its worker
    b.destroyForcibly();
    JsonNode s = finish(a);
    assertThat(s.get("status").asText()).isEqualTo("completed");
    JsonNode gens = s.get("elastic").get("generations");
    JsonNode last = gens.get(gens.size() - 1);
    assertThat(last.get("dp").asInt()).isEqualTo(1);
    assertThat(last.get("micro_batches").asInt()).isEqualTo(2);
    assertThat(steps(metrics())).containsExactly(java.util.stream.LongStream.rangeClosed(1, 24).toArray());
    assertThat(metrics().get(metrics().size() - 1).get("world_size").asInt()).isEqualTo(1);
    // the dead node is blamed, not the survivor's worker that lost its peer; the survivor re-seals without the join window
    JsonNode after = null; // (on a crowded machine node b may have joined by a scale-up generation first)
    for (JsonNode g : gens) if (g.path("cause").asText().equals("failure")) after = g;
    assertThat(after).as(gens.toString()).isNotNull();
    assertThat(after.get("reason").asText()).as(gens.toString()).matches("node \\d \\(" + b.pid() + "@.*\\) lost: its agent sent no heartbeat .*");
    assertThat(Files.readString(dir.resolve("node-a.log"))).contains("(" + b.pid() + "@").containsPattern("failed: node \\d \\(" + b.pid())
        .doesNotContainPattern("failed: rank \\d on node \\d exited");
    System.out.println("ElasticProcessTest killed node: recovery " + after.get("recovery_s"));
  }

  @Test
  void aSecondNodeStartedDuringTrainingJoinsAtAStepBoundaryWithoutLosingAStep() throws Exception {
    Path spec = spec(40);
    Process a = agent(spec, "node-a");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.readString(dir.resolve("node-a.log")).contains("generation 0") && System.nanoTime() < deadline) Thread.sleep(100);
    Process b = agent(spec, "node-b"); // the first generation is sealed: this node waits for the next round
    JsonNode s = finish(a, b);
    assertThat(s.get("restarts").asInt()).isZero();
    JsonNode gens = s.get("elastic").get("generations");
    assertThat(gens.size()).isGreaterThanOrEqualTo(2);
    assertThat(gens.get(0).get("world_size").asInt()).isEqualTo(1);
    assertThat(gens.get(gens.size() - 1).get("world_size").asInt()).isEqualTo(2);
    assertThat(gens.get(gens.size() - 1).get("cause").asText()).isEqualTo("scale-up");
    assertThat(steps(metrics())).containsExactly(java.util.stream.LongStream.rangeClosed(1, 40).toArray());
    assertThat(Files.readString(dir.resolve("node-a.log"))).doesNotContain("failed:");
  }

  @Test
  void aStoppedRankIsDetectedByItsSilenceAndReplaced() throws Exception {
    Path spec = dir.resolve("cold.yaml"); // elastic.standby=0: every worker a new JVM, the path before standbys
    SpecIO.write(tiny(20).set("elastic.standby", 0).toSpec(), spec);
    Process a = agent(spec, "node-a");
    Thread.sleep(300);
    Process b = agent(spec, "node-b");
    awaitStep(6);
    long t0 = System.nanoTime();
    signal("STOP", worker("node-b"));
    JsonNode s = finish(a, b);
    assertThat(s.get("restarts").asInt()).isGreaterThanOrEqualTo(1);
    // the generation after the failure (on a crowded machine node b may join late: a scale-up generation comes first)
    JsonNode afterFailure = null;
    for (JsonNode g : s.get("elastic").get("generations")) if (afterFailure == null && g.path("cause").asText().equals("failure")) afterFailure = g;
    assertThat(afterFailure).as(s.toString()).isNotNull();
    assertThat(afterFailure.get("reason").asText()).containsAnyOf("no heartbeat", "no step", "SIGKILL", "exited");
    assertThat((System.nanoTime() - t0) / 1e9).isLessThan(120);
    assertThat(afterFailure.get("standby_ranks").asInt()).isZero();
    assertThat(Files.readString(dir.resolve("node-b.log"))).contains("(a new JVM)").doesNotContain("warm standby");
  }

  @Test
  void workersStartedBeforeTheRendezvousHostWaitAndJoin() throws Exception {
    Path spec = dir.resolve("w.yaml");
    SpecIO.write(tiny(3).toSpec(), spec);
    int master = FreePort.find();
    List<Process> ranks = new ArrayList<>();
    for (int r : new int[] {1, 0}) {
      ProcessBuilder pb = new ProcessBuilder(JavaCommand.of(List.of("dev.weft.cli.WeftMain", "worker", "--spec",
          spec.toString(), "--run-dir", dir.resolve("w").toString(), "--timeout", "60"))).redirectErrorStream(true)
          .redirectOutput(dir.resolve("w" + r + ".log").toFile());
      pb.environment().putAll(java.util.Map.of("WEFT_RANK", "" + r, "WEFT_WORLD_SIZE", "2", "WEFT_MASTER_ADDR", "127.0.0.1",
          "WEFT_MASTER_PORT", "" + master, "WEFT_THREADS", "1", "OMP_WAIT_POLICY", "PASSIVE"));
      Process p = pb.start();
      started.add(p);
      ranks.add(p);
      if (r == 1) Thread.sleep(4000); // rank 1 (a client) starts well before rank 0 hosts the store
    }
    for (Process p : ranks) {
      assertThat(p.waitFor(90, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(Files.readString(dir.resolve("w1.log"))).isZero();
    }
    assertThat(MetricsJson.readSummary(dir.resolve("w")).status()).isEqualTo("completed");
  }
}
