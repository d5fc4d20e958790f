package dev.weft.bench;

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
          : List.of(new Config("tiny", 64, 16, 2, 25, 4, both, 900), new Config("small", 256, 8, 2, 8, 2, both, 1800));
    }
  }

  /** Per policy, per round: the median step_ms of the fit run and of the launch run. */
  public record Result(Config config, Policy policy, double[] fitMs, double[] launchMs) {}

  private FitBench() {}

  public static List<Result> measure(Config c) {
    Path dir = StepBench.tempDir();
    try {
      List<Result> out = new ArrayList<>();
      for (Policy policy : c.policies()) {
        double[] fit = new double[c.rounds()], launch = new double[c.rounds()];
        for (int r = 0; r < c.rounds(); r++) {
          String tag = policy.name().toLowerCase(Locale.ROOT) + "-" + r;
          boolean fitFirst = r % 2 == 0;
          if (fitFirst) fit[r] = child(c, "fit", policy, dir.resolve("fit-" + tag));
          launch[r] = child(c, "launch", policy, dir.resolve("launch-" + tag));
          if (!fitFirst) fit[r] = child(c, "fit", policy, dir.resolve("fit-" + tag));
        }
        out.add(new Result(c, policy, fit, launch));
      }
      return out;
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  public static List<BenchRow> rows(List<Result> results) {
    List<BenchRow> rows = new ArrayList<>();
    for (Result r : results) {
      Config c = r.config();
      String what = String.format(Locale.ROOT, "step_ms, GPT %s (seq %d, batch %d) dp=%d, %s: in-process fit() vs launch() workers",
          c.size(), c.seqLen(), c.batch(), c.dp(), r.policy().label());
      rows.add(BenchRow.paired("fit", what, Stats.median(r.fitMs()), Stats.median(r.launchMs()), "ms",
          Stats.ratios(r.fitMs(), r.launchMs()), "≤ 1.05", c.steps() + " steps a run, pairs are rounds"));
    }
    return rows;
  }

  /** One run in a child JVM; returns its median step_ms. */
  private static double child(Config c, String mode, Policy policy, Path runDir) {
    List<String> cmd = LocalLauncher.javaCommand(List.of(FitBench.class.getName(), mode, c.size(),
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
      return MetricsJson.readSummary(runDir).stepMsMedian();
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

  /** The child: {@code fit|launch size seqLen batch dp steps runDir}. */
  public static void main(String[] a) {
    Trainer t = Trainer.model("gpt").size(a[1]).seqLen(Integer.parseInt(a[2])).globalBatch(Integer.parseInt(a[3]))
        .dataParallel(Integer.parseInt(a[4])).steps(Integer.parseInt(a[5])).runDir(Path.of(a[6]));
    if (a[0].equals("fit")) {
      t.fit();
    } else {
      LocalLauncher.Outcome o = t.launch(System.out);
      if (!o.ok()) throw new IllegalStateException("launch failed: rank " + o.failedRank() + ": " + o.reason());
    }
    System.exit(0);
  }
}
