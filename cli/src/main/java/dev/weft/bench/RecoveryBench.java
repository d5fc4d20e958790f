package dev.weft.bench;

import dev.weft.launch.JavaCommand;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.comm.RunToken;
import dev.weft.launch.FreePort;
import dev.weft.launch.LocalLauncher;
import dev.weft.launch.WorkerMain;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Elastic recovery (issue 20), with real agents ({@code weft train --nnodes ...}) on this machine and the tiny GPT
 * of the elastic tests: SIGKILL of the worker → its next completed step, with a warm standby against a new JVM
 * (interleaved pairs, {@code elastic.json}'s {@code total_s}); and a node whose agent is SIGSTOPped (its heartbeats
 * stop) → declared lost by the other node, timed from the stop. A standby run kills its worker once the replacement
 * standby has said it is warm (failures come long after start); each run ends once the recovery is recorded. Minutes
 * of agents and JVMs, so not in {@code --quick}.
 */
public final class RecoveryBench {
  public record Config(int pairs, int steps, int killAt) {
    public static Config of(boolean quick) { return new Config(quick ? 1 : 3, 400, 8); } // never reaches 400: stopped once recovered
  }

  /** Seconds: per pair, standby and new-JVM recovery; the detection run's time from SIGSTOP and elastic.json's detected_s. */
  public record Result(Config config, double[] standbyS, double[] coldS, double[] standbyHandoffS, double[] coldJvmS,
                       double detectionFromStopS, double detectedS, int failureTimeoutS) {}

  private static final Duration DEADLINE = Duration.ofMinutes(4); // JVMs starting on a crowded machine
  private static final Pattern RUNS_IN = Pattern.compile("rank \\d+ runs in pid (\\d+)");
  private static final Pattern STANDBY_STARTED = Pattern.compile("warm standby worker started \\(pid (\\d+)\\)");

  private RecoveryBench() {}

  public static Result measure(Config c) {
    Path dir = StepBench.tempDir();
    try {
      Path spec = dir.resolve("tiny.yaml");
      String text = tiny(c.steps());
      TrainingSpec s = SpecIO.parse(text);
      Files.writeString(spec, text);
      int n = c.pairs();
      double[] warm = new double[n], cold = new double[n], handoff = new double[n], jvm = new double[n];
      for (int i = 0; i < n; i++) {
        for (int k = 0; k < 2; k++) {
          boolean standby = (i + k) % 2 == 0; // interleaved: the order alternates between pairs
          JsonNode r = killWorker(spec, dir.resolve("kill-" + i + "-" + k), standby ? 1 : 0, c.killAt());
          (standby ? warm : cold)[i] = r.get("total_s").asDouble();
          (standby ? handoff : jvm)[i] = r.get("jvm_start_s").asDouble();
        }
      }
      double[] detection = stopAgent(spec, dir.resolve("stop"), c.killAt());
      return new Result(c, warm, cold, handoff, jvm, detection[0], detection[1], s.elastic().failureTimeoutSeconds());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  public static List<BenchRow> rows(Result r) {
    List<BenchRow> rows = new ArrayList<>();
    String note = String.format(Locale.ROOT, "%d kill(s) each, tiny GPT, one agent 1:1; handoff %.2f s vs JVM start %.2f s (medians)",
        r.config().pairs(), Stats.median(r.standbyHandoffS()), Stats.median(r.coldJvmS()));
    rows.add(BenchRow.paired("recovery", "SIGKILL of the worker → next step, warm standby vs new JVM", Stats.median(r.standbyS()),
        Stats.median(r.coldS()), "s", Stats.ratios(r.standbyS(), r.coldS()), "≤ 5 s (idle machine)", note));
    rows.add(BenchRow.of("recovery", "agent SIGSTOPped (heartbeats stop) → declared lost, vs elastic.failureTimeoutSeconds",
        r.detectionFromStopS(), r.failureTimeoutS(), "s", "≤ 5 s, ratio ≤ 1",
        String.format(Locale.ROOT, "one run; elastic.json detected_s (last beat → lost) %.2f s", r.detectedS())));
    return rows;
  }

  /** The elastic tests' tiny GPT (2 layers, hidden 32, seq 16, batch 8), checkpointed every step as elastic runs are; dp 2 in the spec keeps the micro-batch at 4 for 1 or 2 nodes. */
  static String tiny(int steps) {
    return String.join("\n", "name: bench-recovery", "model:", "  factory: gpt", "  config: {layers: 2, hidden: 32, heads: 2}",
        "parallel: {dp: 2}", "train: {steps: " + steps + ", globalBatch: 8, warmup: 2, logEvery: 1}",
        "data: {source: arithmetic, seqLen: 16}", "elastic: {failureTimeoutSeconds: 5, heartbeatSeconds: 1}", "");
  }

  /** One agent, its worker SIGKILLed after step {@code killAt}: the recovery_s of the generation after. */
  private static JsonNode killWorker(Path spec, Path run, int standby, int killAt) throws IOException {
    Process agent = agent(spec, run, "a", "1:1", FreePort.find(), standby);
    try {
      awaitStep(run, killAt, agent);
      // a failure usually comes long after start: the replacement standby has warmed up (it says so) by then
      Path log = run.resolve("a.log");
      if (standby > 0) {
        awaitLine(log, "worker started (pid", agent); // the replacement, started after the first step
        awaitLine(log, "standby pid " + lastPid(log, STANDBY_STARTED) + " warm", agent);
      }
      kill("KILL", lastPid(log, RUNS_IN));
      return awaitRecovery(run, agent).get("recovery_s"); // the rest of the run is not needed
    } finally {
      agent.descendants().forEach(ProcessHandle::destroyForcibly);
      agent.destroyForcibly();
    }
  }

  /** Two agents; the second is SIGSTOPped: {seconds from the stop to the first node's close, detected_s}. */
  private static double[] stopAgent(Path spec, Path run, int stopAt) throws IOException {
    int port = FreePort.find();
    Process a = agent(spec, run, "a", "1:2", port, 1);
    Process b = null;
    try {
      awaitLine(run.resolve("a.log"), "hosting the rendezvous store", a);
      b = agent(spec, run, "b", "1:2", port, 1);
      awaitLine(run.resolve("a.log"), "world size 2", a);
      awaitStep(run, stopAt, a);
      long stoppedAt = System.currentTimeMillis();
      kill("STOP", b.pid());
      awaitLine(run.resolve("a.log"), "lost: its agent sent no heartbeat", a); // the monitor of node a declares b lost
      b.descendants().forEach(ProcessHandle::destroyForcibly);
      b.destroyForcibly();
      JsonNode g = awaitRecovery(run, a);
      return new double[] {(g.get("previous_ended_at_ms").asLong() - stoppedAt) / 1000.0, g.get("recovery_s").get("detected_s").asDouble()};
    } finally {
      for (Process p : b == null ? List.of(a) : List.of(a, b)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
    }
  }

  private static final String TOKEN = RunToken.generate();

  private static Process agent(Path spec, Path run, String name, String nodes, int port, int standby) throws IOException {
    Files.createDirectories(run);
    List<String> cmd = JavaCommand.of(List.of(WorkerMain.CLASS, "train", spec.toString(), "--nnodes", nodes,
        "--rdzv-endpoint", "127.0.0.1:" + port, "--rdzv-id", "bench", "--run-dir", run.resolve("run").toString(), "--join-window", "1",
        "--set", "elastic.standby=" + standby));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(run.resolve(name + ".log").toFile());
    pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
    pb.environment().put(RunToken.ENV, TOKEN); // the agents of one run share it (without one, the host's agent makes its own)
    return pb.start();
  }

  private static void awaitStep(Path run, long step, Process agent) throws IOException {
    Path metrics = run.resolve("run/metrics.jsonl");
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (System.nanoTime() < deadline && agent.isAlive()) {
      if (Files.isRegularFile(metrics) && Files.readAllLines(metrics).stream().filter(l -> !l.isBlank()).count() >= step) return;
      pause();
    }
    throw failed("reached no step " + step, run.resolve("a.log"), agent);
  }

  private static void awaitLine(Path log, String text, Process agent) throws IOException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (System.nanoTime() < deadline && agent.isAlive()) {
      if (Files.isRegularFile(log) && Files.readString(log).contains(text)) return;
      pause();
    }
    throw failed("did not say '" + text + "'", log, agent);
  }

  /** The failure with the agent's last lines (the bench's directory is deleted afterwards). */
  private static IllegalStateException failed(String what, Path log, Process agent) throws IOException {
    List<String> lines = Files.isRegularFile(log) ? Files.readAllLines(log) : List.of();
    String tail = String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    return new IllegalStateException("the bench's agent " + what + (agent.isAlive() ? " in " + DEADLINE.toSeconds() + " s"
        : " (it exited with code " + agent.exitValue() + ")") + "; its last lines:\n" + tail);
  }

  private static long lastPid(Path log, Pattern pattern) throws IOException {
    Matcher m = pattern.matcher(Files.readString(log));
    long pid = -1;
    while (m.find()) pid = Long.parseLong(m.group(1));
    if (pid < 0) throw new IllegalStateException("the bench's agent named no worker pid: see " + log);
    return pid;
  }

  /** The generation that followed the failure (a scale-up may come before it when a node joined late), or null. */
  private static JsonNode afterFailure(Path run) throws IOException {
    Path f = run.resolve("run/elastic.json");
    if (!Files.isRegularFile(f)) return null;
    for (JsonNode g : Json.PLAIN.readTree(f.toFile()).get("generations")) {
      if (g.path("cause").asText().equals("failure") && g.has("recovery_s")) return g;
    }
    return null;
  }

  /** Waits for node 0 to record the first step after the failure (elastic.json is rewritten atomically). */
  private static JsonNode awaitRecovery(Path run, Process agent) throws IOException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (System.nanoTime() < deadline && agent.isAlive()) {
      JsonNode g = afterFailure(run);
      if (g != null) return g;
      pause();
    }
    JsonNode g = afterFailure(run);
    if (g == null) throw failed("recorded no recovery", run.resolve("a.log"), agent);
    return g;
  }

  private static void kill(String signal, long pid) throws IOException {
    try {
      new ProcessBuilder("kill", "-" + signal, String.valueOf(pid)).start().waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void pause() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
