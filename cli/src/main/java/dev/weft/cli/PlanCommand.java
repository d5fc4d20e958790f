package dev.weft.cli;

import dev.weft.plan.SpecCheck;
import dev.weft.plan.Bytes;
import dev.weft.plan.HsdpPlan;
import dev.weft.plan.LoraPlan;
import dev.weft.plan.MemoryPlan;
import dev.weft.plan.Preflight;
import dev.weft.plan.RankPlan;
import dev.weft.plan.SaveTimePlan;
import dev.weft.preempt.GracePeriod;
import dev.weft.spec.TrainingSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code weft plan SPEC}: per-rank memory and communication per step of the spec's layout, before running anything. */
@Command(name = "plan", mixinStandardHelpOptions = true,
    description = "Print each rank's expected memory (parameters, gradients, optimizer state, activations) and communication per step.")
final class PlanCommand implements Callable<Integer> {
  @Mixin SpecOptions specOptions;

  @Override
  public Integer call() {
    TrainingSpec spec = SpecCheck.validate(specOptions.read());
    var p = spec.parallel();
    List<RankPlan> ranks = MemoryPlan.ranks(spec).orElse(null);
    if (ranks == null) {
      System.out.printf("weft: no memory plan for model.factory '%s' (its factory does not describe its shape: ModelFactory.shape)%n",
          spec.model().factory());
      return 0;
    }
    System.out.printf(Locale.ROOT, "%s: dp=%d tp=%d pp=%d%s, zero %d, %s, %d × %d tokens per step; this machine has %s%n",
        spec.name(), p.dp(), p.tp(), p.pp(), p.cp() > 1 ? " cp=" + p.cp() + " (" + p.cpMethod() + ")" : "", p.zero(), spec.precision().dtype(), spec.train().globalBatch(), spec.data().seqLen(),
        Bytes.human(Preflight.machineBytes()));
    System.out.printf("%-5s %-9s %10s %11s %11s %11s %11s %11s %11s   %s%n", "rank", "dp/pp/tp", "params", "parameters", "gradients",
        "optimizer", "activations", "runtime", "total", "sent per step: dp / tp / pp");
    double total = 0;
    // ranks with the same figures (the dp replicas and tp peers of a stage) print once, with their count
    Map<List<Double>, Integer> seen = new LinkedHashMap<>();
    Map<List<Double>, RankPlan> firstOf = new LinkedHashMap<>();
    for (RankPlan r : ranks) {
      List<Double> key = List.of(r.parameterCount(), r.total(), r.dpBytes() + r.dpReplicateBytes(), r.tpBytes(), r.ppBytes(), r.cpBytes());
      seen.merge(key, 1, Integer::sum);
      firstOf.putIfAbsent(key, r);
      total += r.total();
    }
    for (var e : firstOf.entrySet()) {
      RankPlan r = e.getValue();
      int same = seen.get(e.getKey());
      var at = new dev.weft.comm.DeviceMesh(p.dp(), p.pp(), p.cp(), p.tp()).coord(r.rank());
      int tpRank = at.tp(), ppRank = at.pp(), dpRank = at.dp();
      System.out.printf(Locale.ROOT, "%-5s %-9s %10s %11s %11s %11s %11s %11s %11s   %s / %s / %s%s%n",
          r.rank() + (same > 1 ? "×" + same : ""), dpRank + "/" + ppRank + "/" + tpRank, Bytes.count(r.parameterCount()),
          Bytes.human(r.parameters()), Bytes.human(r.gradients()), Bytes.human(r.optimizerState()), Bytes.human(r.activations()),
          Bytes.human(r.runtime()), Bytes.human(r.total()), Bytes.human(r.dpBytes() + r.dpReplicateBytes()), Bytes.human(r.tpBytes()),
          Bytes.human(r.ppBytes()), r.cp() > 1 ? " / cp " + Bytes.human(r.cpBytes()) : "");
    }
    if (ranks.get(0).pendingGradients() > 0) {
      System.out.printf("total includes %s of autograd's gradients per rank, alive beside the flat gradient buffer until backward"
          + " ends (dp = 1)%n", Bytes.human(ranks.get(0).pendingGradients()));
    }
    System.out.printf("all %d ranks: %s%n", ranks.size(), Bytes.human(total));
    HsdpPlan.line(spec, ranks).ifPresent(System.out::println);
    dev.weft.plan.ExpertPlan.line(spec).ifPresent(System.out::println);
    LoraPlan.line(spec, ranks, MemoryPlan.fullFineTune(spec).orElseThrow()).ifPresent(System.out::println);
    System.out.println(SaveTimePlan.of(spec, ranks, GracePeriod.of(System.getenv(), spec.deployment().terminationGraceSeconds())).line());
    return 0;
  }
}
