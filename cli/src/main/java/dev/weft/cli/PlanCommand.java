package dev.weft.cli;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.weft.models.hf.HfModelInit;
import dev.weft.models.hf.HfShards;
import dev.weft.plan.FitPlan;
import dev.weft.plan.SpecCheck;
import dev.weft.spec.SpecIO;
import dev.weft.spec.SpecOverrides;
import dev.weft.plan.Bytes;
import dev.weft.plan.HsdpPlan;
import dev.weft.plan.LoraPlan;
import dev.weft.plan.MemoryPlan;
import dev.weft.plan.Preflight;
import dev.weft.plan.RankPlan;
import dev.weft.plan.SaveTimePlan;
import dev.weft.preempt.GracePeriod;
import dev.weft.spec.TrainingSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code weft plan SPEC}: per-rank memory and communication per step of the spec's layout, before running anything. */
@Command(name = "plan", mixinStandardHelpOptions = true,
    description = "Print each rank's expected memory (parameters, gradients, optimizer state, activations) and communication per step.")
final class PlanCommand implements Callable<Integer> {
  @Mixin SpecOptions specOptions;

  @Option(names = "--memory", paramLabel = "SIZE", description = "Memory per rank (e.g. 24GiB, 16GB): also print the longest"
      + " sequence and the largest batch that fit in it, and which --like presets fit.")
  String memory;

  @Option(names = "--like", paramLabel = "NAME", split = ",", description = "With --memory: the model presets to try in place of"
      + " the spec's model (comma-separated; default: all of weft model init's presets).")
  List<String> like = new ArrayList<>();

  @Override
  public Integer call() {
    Double perRank = memory == null ? null : memoryBytes(memory);
    if (!like.isEmpty() && perRank == null) throw new CommandLine.ParameterException(new CommandLine(this), "--like needs --memory SIZE (the memory per rank to fit)");
    for (String l : like) {
      if (!HfModelInit.presets().contains(l)) {
        throw new CommandLine.ParameterException(new CommandLine(this), "--like " + l + " is not a preset; use one of " + HfModelInit.presets());
      }
    }
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
    if (perRank != null) fits(spec, perRank);
    return 0;
  }

  /** {@code --memory} as bytes, or a one-line error naming the option. */
  private Double memoryBytes(String text) {
    Long b = HfShards.parseSize(text);
    if (b == null) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--memory " + text + " is not a size; write e.g. 24GiB, 16GB or 8000MiB");
    }
    return b.doubleValue();
  }

  /** What fits in {@code perRank} bytes: the longest sequence, the largest batch, and the presets at this sequence and batch. */
  private void fits(TrainingSpec spec, double perRank) {
    String in = Bytes.human(perRank) + " per rank";
    System.out.println("fits in " + in + ": " + bound("data.seqLen", FitPlan.longestSeq(spec, perRank)) + " at train.globalBatch="
        + spec.train().globalBatch() + "; " + bound("train.globalBatch", FitPlan.largestBatch(spec, perRank)) + " at data.seqLen="
        + spec.data().seqLen());
    List<String> names = like.isEmpty() ? HfModelInit.presets() : like;
    for (String name : names) {
      TrainingSpec preset = withPreset(spec, name);
      double need = FitPlan.peak(preset).orElseThrow();
      System.out.printf(Locale.ROOT, "  --like %-16s %9s per rank: %s%s%n", name, Bytes.human(need), need <= perRank ? "fits" : "does not fit",
          need <= perRank ? "" : FitPlan.longestSeq(preset, perRank).stream().mapToObj(n -> " (data.seqLen up to " + n + " does)").findFirst().orElse(""));
    }
  }

  private static String bound(String field, java.util.OptionalInt n) {
    if (n.isEmpty()) return "no " + field + " fits";
    return field + " up to " + n.getAsInt() + (n.getAsInt() >= (field.equals("data.seqLen") ? FitPlan.MAX_SEQ : FitPlan.MAX_BATCH) ? " (the most searched)" : "");
  }

  /**
   * {@code spec} over the model {@code like} describes (its config.json in a directory of its own, no weights: the plan
   * reads the sizes only); everything else, LoRA included, as the spec says.
   */
  private static TrainingSpec withPreset(TrainingSpec spec, String like) {
    try {
      java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("weft-plan-like");
      var config = HfModelInit.config(like, "--like");
      java.nio.file.Files.writeString(dir.resolve("config.json"), config.toString());
      dir.resolve("config.json").toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      var tree = SpecIO.toTree(spec);
      SpecOverrides.set(tree, "model.factory", TextNode.valueOf(config.path("model_type").asText()));
      SpecOverrides.set(tree, "model.pretrained", TextNode.valueOf(dir.toString()));
      ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("model")).putObject("config");
      return SpecIO.bind(tree);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
