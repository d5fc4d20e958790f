package dev.weft.bench;

import dev.weft.models.gpt.GptConfig;
import dev.weft.util.NativeThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Runs the benchmarks {@code comm}, {@code step}, {@code mfu}, {@code fit}, {@code tp}, {@code zero}, {@code pipeline},
 * {@code checkpoint}, {@code recovery}, {@code lora}, {@code load}, {@code packing}, {@code cp}, {@code moe}, {@code progress} and {@code memory} (or {@code all}; with {@code quick}, all but {@link #NOT_QUICK}) and
 * collects their rows. {@code quick} shrinks sizes and repeats so that everything runs in seconds
 * (for tests; its numbers are not meant to be quoted).
 */
public final class BenchSuite {
  public static final List<String> NAMES = List.of("comm", "step", "mfu", "fit", "tp", "zero", "pipeline", "checkpoint", "recovery", "lora", "load", "packing", "cp", "moe", "progress", "memory", "grpo");
  /** Benchmarks {@code all --quick} leaves out: minutes of real agents and JVMs even at their smallest. */
  public static final Set<String> NOT_QUICK = Set.of("recovery", "load", "progress", "memory", "grpo");

  private BenchSuite() {}

  /** The reference GPT of the step and tp benchmarks: size tiny, seq 64. */
  public static GptConfig tinyGpt() { return new GptConfig(4, 128, 4, 4, 256, 64); }

  public static List<BenchRow> run(String which, boolean quick) {
    Set<String> sel = which.equals("all") ? Set.copyOf(NAMES) : Set.of(which);
    if (quick && which.equals("all")) sel = sel.stream().filter(n -> !NOT_QUICK.contains(n)).collect(java.util.stream.Collectors.toSet());
    if (!NAMES.containsAll(sel)) throw new IllegalArgumentException("unknown benchmark '" + which + "'; use one of " + NAMES + " or all");
    List<BenchRow> rows = new ArrayList<>();
    if (sel.contains("comm")) {
      long[] sizes = quick ? new long[] {256L << 10, 1L << 20} : new long[] {256L << 10, 4L << 20, 64L << 20};
      rows.addAll(CommBench.rows(CommBench.measure(sizes, quick ? 4L << 20 : 1L << 30)));
    }
    if (sel.contains("step")) rows.addAll(PlainStepBench.rows(PlainStepBench.measure(PlainStepBench.Config.of(quick))));
    StepBench.Result step = null;
    if (sel.contains("step") || sel.contains("mfu")) {
      step = StepBench.measure(StepBench.Config.of(quick));
      if (sel.contains("step")) rows.addAll(StepBench.rows(step));
    }
    if (sel.contains("mfu")) {
      rows.addAll(MfuBench.rows(MfuBench.peak(quick, step.config().threads()), step));
    }
    if (sel.contains("fit")) {
      for (FitBench.Config c : FitBench.Config.all(quick)) rows.addAll(FitBench.rows(FitBench.measure(c)));
    }
    if (sel.contains("tp")) {
      rows.addAll(TpBench.rows(TpBench.measure(tinyGpt(), 2, quick ? 2 : 16)));
      rows.addAll(TpStepBench.rows(TpStepBench.measure(TpStepBench.Config.of(quick))));
    }
    if (sel.contains("zero")) {
      rows.addAll(ZeroBench.rows(ZeroBench.measure(ZeroBench.Config.of(quick))));
      rows.addAll(ZeroStepBench.rows(ZeroStepBench.measure(ZeroStepBench.Config.of(quick))));
    }
    if (sel.contains("pipeline")) rows.addAll(PipelineBench.rows(PipelineBench.measure(PipelineBench.Config.of(quick))));
    if (sel.contains("pipeline")) rows.addAll(ZeroBubbleBench.rows(ZeroBubbleBench.measure(ZeroBubbleBench.Config.of(quick))));
    if (sel.contains("checkpoint")) rows.addAll(CheckpointPart.rows(CheckpointPart.measure(CheckpointPart.Config.of(quick))));
    if (sel.contains("recovery")) rows.addAll(RecoveryBench.rows(RecoveryBench.measure(RecoveryBench.Config.of(quick))));
    if (sel.contains("lora")) rows.addAll(LoraBench.rows(LoraBench.measure(LoraBench.Config.of(quick))));
    if (sel.contains("grpo")) rows.addAll(GrpoBench.rows(GrpoBench.measure(GrpoBench.Config.of(quick))));
    if (sel.contains("packing")) rows.addAll(PackingBench.rows(PackingBench.measure(PackingBench.Config.of(quick))));
    if (sel.contains("load")) rows.addAll(LoadBench.rows(LoadBench.measure(LoadBench.Config.of(quick))));
    if (sel.contains("cp")) rows.addAll(CpBench.rows(CpBench.measure(CpBench.Config.of(quick))));
    if (sel.contains("moe")) {
      MoeBench.Config c = MoeBench.Config.of(quick);
      rows.addAll(quick ? MoeBench.rows(MoeBench.measure(c, MoeBench.Routing.BALANCED))
          : MoeBench.rows(MoeBench.measure(c, MoeBench.Routing.BALANCED), MoeBench.measure(c, MoeBench.Routing.ROUTER),
              MoeBench.measure(c, MoeBench.Routing.ARITHMETIC)));
    }
    if (sel.contains("progress")) rows.addAll(ProgressBench.rows(ProgressBench.measure(ProgressBench.Config.of(quick))));
    if (sel.contains("memory")) rows.addAll(MemoryBench.rows(MemoryBench.measure(MemoryBench.Config.of(quick))));
    return rows;
  }

  /** The rows as a markdown table. */
  public static String markdown(List<BenchRow> rows) {
    StringBuilder sb = new StringBuilder();
    sb.append("| benchmark | quantity | measured | reference | ratio | target | spread / notes |\n");
    sb.append("|---|---|---:|---:|---:|---|---|\n");
    for (BenchRow r : rows) {
      sb.append(String.format(Locale.ROOT, "| %s | %s | %s %s | %s %s | %s | %s | %s |%n", r.benchmark(), r.quantity(),
          number(r.measured()), r.unit(), number(r.reference()), r.unit(), ratio(r.ratio()), r.target(), r.spread()));
    }
    return sb.toString();
  }

  /** A header line: machine, threads, OMP_WAIT_POLICY, the workers' allocator. */
  public static String environment() {
    String preload = dev.weft.launch.Allocator.workerEnv().get("LD_PRELOAD");
    return String.format(Locale.ROOT, "%d cores, %d intra-op threads for one rank, OMP_WAIT_POLICY=%s, workers' malloc %s, Java %s",
        Runtime.getRuntime().availableProcessors(), NativeThreads.perRank(1),
        System.getenv().getOrDefault("OMP_WAIT_POLICY", "unset"), preload == null ? "glibc" : preload, Runtime.version());
  }

  private static String ratio(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%.3f", v) : "n/a";
  }

  private static String number(double v) {
    if (v == Math.rint(v) && Math.abs(v) >= 1000) return String.format(Locale.ROOT, "%,d", (long) v);
    if (Math.abs(v) >= 100) return String.format(Locale.ROOT, "%.1f", v);
    return String.format(Locale.ROOT, "%.3f", v);
  }
}
