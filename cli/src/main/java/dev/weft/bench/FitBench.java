package dev.weft.bench;

import dev.weft.launch.JavaCommand;
import dev.weft.Trainer;
import dev.weft.launch.LocalLauncher;
import dev.weft.metrics.MetricsJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * In-process {@code fit()} (rank threads in one JVM) against {@code launch()} (one worker JVM per
 * rank) for the same dp layout. Each run is a child JVM of its own, so the run starts in a fresh
 * process whose environment this bench sets: {@code OMP_WAIT_POLICY=PASSIVE}, or the variable
 * removed (what a JShell user has). The launcher's workers get their environment from the launcher,
 * so only the fit side sees the difference. A pair is one fit run and one launch run of the same
 * round (order alternating by round), each its median {@code step_ms} from {@code summary.json}.
 */
public final class FitBench {
  /** The two wait policies the fit JVM is started with. */
  public enum Policy {
    PASSIVE, UNSET;

    String label() { return this == PASSIVE ? "OMP_WAIT_POLICY=PASSIVE" : "OMP_WAIT_POLICY unset"; }
  }

  /** Runs per side and policy ({@code rounds}) of {@code steps} steps each, GPT {@code size} at data parallel {@code dp}; a child's deadline. */
  public record Config(String size, int seqLen, int batch, int dp, int steps, int rounds, List<Policy> policies,
                       int runTimeoutS) {
    /** GPT tiny, and for quoting also GPT small (fewer steps: ~1.5 s each on 2 idle cores); quick: one pair, policy unset. */
    public static List<Config> all(boolean quick) {
      List<Policy> both = List.of(Policy.values());
      return quick ? List.of(new Config("tiny", 64, 16, 2, 3, 1, List.of(Policy.UNSET), 300))
          : List.of(new Config("tiny", 64, 16, 2, 20, 3, both, 900), new Config("small", 256, 8, 2, 6, 2, both, 1800));
    }
  }

  /** Per policy, per round: the median step_ms of the fit run and of the launch run, and their CPU ms per step. */
  public record Result(Config config, Policy policy, double[] fitMs, double[] launchMs, double[] fitCpuMs,
                       double[] launchCpuMs) {}

  /** One run's median step_ms and CPU ms per step ({@link TrainingCpu}; NaN where not sampled). */
  private record Run(double stepMs, double cpuMs) {}

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FitBench.class);
  private static final String CPU_FILE = "bench-cpu-ms-per-step.txt";

  private FitBench() {}

  public static List<Result> measure(Config c) {
    Path dir = StepBench.tempDir();
    try {
      List<Result> out = new ArrayList<>();
      for (Policy policy : c.policies()) {
        Run[] fit = new Run[c.rounds()], launch = new Run[c.rounds()];
        for (int r = 0; r < c.rounds(); r++) {
          String tag = policy.name().toLowerCase(Locale.ROOT) + "-" + r;
          boolean fitFirst = r % 2 == 0;
          if (fitFirst) fit[r] = child(c, "fit", policy, dir.resolve("fit-" + tag));
          launch[r] = child(c, "launch", policy, dir.resolve("launch-" + tag));
          if (!fitFirst) fit[r] = child(c, "fit", policy, dir.resolve("fit-" + tag));
        }
        out.add(new Result(c, policy, steps(fit), steps(launch), cpu(fit), cpu(launch)));
      }
      return out;
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  private static double[] steps(Run[] runs) { return java.util.Arrays.stream(runs).mapToDouble(Run::stepMs).toArray(); }

  private static double[] cpu(Run[] runs) { return java.util.Arrays.stream(runs).mapToDouble(Run::cpuMs).toArray(); }

  public static List<BenchRow> rows(List<Result> results) {
    List<BenchRow> rows = new ArrayList<>();
    for (Result r : results) {
      Config c = r.config();
      String what = String.format(Locale.ROOT, "step_ms, GPT %s (seq %d, batch %d) dp=%d, %s: in-process fit() vs launch() workers",
          c.size(), c.seqLen(), c.batch(), c.dp(), r.policy().label());
      rows.add(BenchRow.paired("fit", what, Stats.median(r.fitMs()), Stats.median(r.launchMs()), "ms",
          Stats.ratios(r.fitMs(), r.launchMs()), "≤ 1.05", c.steps() + " steps a run, pairs are rounds"));
      cpuRow(r).ifPresent(rows::add);
    }
    return rows;
  }

  /** CPU ms per step of the training processes, over the rounds where both sides were sampled. */
  private static java.util.Optional<BenchRow> cpuRow(Result r) {
    List<Integer> ok = java.util.stream.IntStream.range(0, r.fitCpuMs().length)
        .filter(i -> Double.isFinite(r.fitCpuMs()[i]) && Double.isFinite(r.launchCpuMs()[i]) && r.launchCpuMs()[i] > 0)
        .boxed().toList();
    if (ok.isEmpty()) return java.util.Optional.empty();
    double[] f = ok.stream().mapToDouble(i -> r.fitCpuMs()[i]).toArray(), l = ok.stream().mapToDouble(i -> r.launchCpuMs()[i]).toArray();
    return java.util.Optional.of(BenchRow.paired("fit", "CPU ms per step of the training processes, " + r.policy().label()
        + ": fit() JVM vs the launch() workers", Stats.median(f), Stats.median(l), "ms", Stats.ratios(f, l), "(attribution)",
        "spinning shows here; barely moved by other processes' load"));
  }

  /** One run in a child JVM; returns its median step_ms and CPU per step. */
  private static Run child(Config c, String mode, Policy policy, Path runDir) {
    List<String> cmd = JavaCommand.of(List.of(FitBench.class.getName(), mode, c.size(),
        String.valueOf(c.seqLen()), String.valueOf(c.batch()), String.valueOf(c.dp()), String.valueOf(c.steps()),
        runDir.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    if (policy == Policy.PASSIVE) pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
    else pb.environment().remove("OMP_WAIT_POLICY");
    Path log = runDir.resolveSibling(runDir.getFileName() + ".log");
    pb.redirectOutput(log.toFile());
    try {
      Process p = pb.start();
      if (!p.waitFor(c.runTimeoutS(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("fit bench: the " + mode + " run took over " + c.runTimeoutS() + " s; log:\n" + tail(log));
      }
      if (p.exitValue() != 0) throw new IllegalStateException("fit bench: the " + mode + " run failed; log:\n" + tail(log));
      Path cpu = runDir.resolve(CPU_FILE);
      double cpuMs = Files.exists(cpu) ? Double.parseDouble(Files.readString(cpu).trim()) : Double.NaN;
      Run run = new Run(MetricsJson.readSummary(runDir).stepMsMedian(), cpuMs);
      LOG.info("fit bench: {} {} {}: step_ms median {} ms, {} CPU ms per step", runDir.getFileName(), c.size(), policy.label(),
          String.format(Locale.ROOT, "%.1f", run.stepMs()), String.format(Locale.ROOT, "%.1f", run.cpuMs()));
      return run;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a fit bench run", e);
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /**
   * The child: {@code fit|launch size seqLen batch dp steps runDir}. CPU is sampled from the first
   * step (or the second, with enough steps) to the one before the last, while the workers still run.
   */
  public static void main(String[] a) throws IOException {
    int steps = Integer.parseInt(a[5]);
    Path runDir = Path.of(a[6]);
    boolean fit = a[0].equals("fit");
    Trainer t = Trainer.model("gpt").size(a[1]).seqLen(Integer.parseInt(a[2])).globalBatch(Integer.parseInt(a[3]))
        .dataParallel(Integer.parseInt(a[4])).steps(steps).runDir(runDir);
    long to = Math.max(2, steps - 1), from = Math.min(2, to - 1);
    TrainingCpu cpu = new TrainingCpu(runDir, !fit, from, to).start();
    if (fit) {
      t.fit();
    } else {
      LocalLauncher.Outcome o = t.launch(System.out);
      if (!o.ok()) throw new IllegalStateException("launch failed: rank " + o.failedRank() + ": " + o.reason());
    }
    Files.writeString(runDir.resolve(CPU_FILE), String.valueOf(cpu.msPerStep()));
    System.exit(0);
  }
}
