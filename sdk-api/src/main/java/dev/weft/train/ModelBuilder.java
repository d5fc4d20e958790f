package dev.weft.train;

import dev.weft.comm.Communicator;
import dev.weft.comm.Distributed;
import dev.weft.comm.HybridGroups;
import dev.weft.parallel.data.ExpertGroups;
import dev.weft.models.Init;
import dev.weft.models.LanguageModel;
import dev.weft.models.Layers;
import dev.weft.models.ModelContext;
import dev.weft.models.ModelFactories;
import dev.weft.models.ModelFactory;
import dev.weft.models.hf.HuggingFaceFormat;
import dev.weft.models.hf.PeftAdapter;
import dev.weft.models.hf.PretrainedWeights;
import dev.weft.models.Parameters;
import dev.weft.models.Parameters.Param;
import dev.weft.models.lora.LoraLayers;
import dev.weft.models.quant.FrozenBase;
import java.util.List;
import dev.weft.models.layers.DenseLayers;
import dev.weft.parallel.data.Zero3Layers;
import dev.weft.parallel.context.ContextLayers;
import dev.weft.parallel.expert.ExpertParallelLayers;
import dev.weft.parallel.tensor.TensorParallelLayers;
import dev.weft.parallel.tensor.TpOps;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import java.nio.file.Path;

/**
 * The framework's side of the model seam: builds the {@link Layers} for the run's layout (plain,
 * tensor-parallel, with LoRA adapters, ZeRO-3-wrapped), lets the factory build its model from them, and fills the
 * weights from {@code model.pretrained} when the spec names one.
 */
public final class ModelBuilder {
  private ModelBuilder() {}

  /** Layers for this rank: split over {@code tp} when it has more than one rank, gathered (ZeRO-3) or awaited (ZeRO-1/2) per layer. */
  public static Layers layersFor(TrainingSpec spec, Communicator tp) { return layersFor(spec, tp, null); }

  /** As {@link #layersFor(TrainingSpec, Communicator)}, with ring attention over {@code cp} when it has more than one rank. */
  public static Layers layersFor(TrainingSpec spec, Communicator tp, Communicator cp) { return layersFor(spec, tp, cp, null); }

  /**
   * As above, with a MoE layer's routed experts split over {@code ep} when it has more than one rank. Expert
   * parallelism is the outermost decorator: it only decides where experts live, and builds this rank's own through
   * the layers below it (so each expert linear is a ZeRO unit, split over tp, like any other).
   */
  public static Layers layersFor(TrainingSpec spec, Communicator tp, Communicator cp, Communicator ep) {
    return stack(spec, tp, cp, ep).top();
  }

  /**
   * The decorators of one rank's layers as they are stacked, each kept by name (null where the layout has none), so
   * nobody peels the stack to find one again.
   */
  private record LayerStack(Layers top, TpOps tpOps, ContextLayers context, LoraLayers adapters, Zero3Layers zeroUnits,
                            ExpertParallelLayers experts) {}

  private static LayerStack stack(TrainingSpec spec, Communicator tp, Communicator cp, Communicator ep) {
    return stack(spec, tp, cp, ep, spec.parallel().zero());
  }

  /** {@code zero}: the ZeRO stage the layers are wrapped for (0: none, a copy no optimizer owns). */
  private static LayerStack stack(TrainingSpec spec, Communicator tp, Communicator cp, Communicator ep, int zero) {
    var p = spec.parallel();
    TpOps tpOps = tp == null || tp.size() == 1 ? null : new TpOps(tp);
    Layers layers = plainLayers(spec, tpOps);
    ContextLayers context = cp != null && cp.size() > 1 ? new ContextLayers(layers, cp, p.cpMethod()) : null;
    if (context != null) layers = context;
    // a compressed base holds the embedding and head in 16 bits too where one rank holds them whole and no stage copies them
    boolean tables = p.unsplit();
    LoraLayers adapters = spec.train().lora().enabled()
        ? new LoraLayers(layers, spec.train().lora(), spec.train().seed(), tables, spec.train().lossChunk()) : null; // a LoRA linear is one ZeRO unit
    if (adapters != null) layers = adapters;
    Zero3Layers zeroUnits = zero >= 1 ? new Zero3Layers(layers, zero == 3) : null;
    if (zeroUnits != null) layers = zeroUnits;
    ExpertParallelLayers experts = ep != null && ep.size() > 1 ? new ExpertParallelLayers(layers, ep) : null;
    return new LayerStack(experts != null ? experts : layers, tpOps, context, adapters, zeroUnits, experts);
  }

  /** Plain or tensor-parallel layers, before adapters and ZeRO. */
  private static Layers plainLayers(TrainingSpec spec, TpOps tpOps) {
    long seed = spec.train().seed();
    // pretrained weights overwrite every initial weight (a LoRA adapter's are drawn by LoraLayers): draw none
    Init.Draws init = spec.model().hasPretrained() ? Init.Draws.unset(seed) : Init.Draws.seeded(seed);
    int chunk = spec.train().lossChunk();
    return tpOps == null ? new DenseLayers(init, chunk)
        : new TensorParallelLayers(init, tpOps, spec.parallel().sequenceParallel(), chunk);
  }

  /** This rank's part of the model, with pretrained weights when the spec names them. */
  public static LanguageModel build(TrainingSpec spec, Communicator tp, int ppRank) {
    return buildWith(spec, stack(spec, tp, null, null), ppRank);
  }

  /** This rank's part of the model whose sequence is split over {@code cp} (context parallelism). */
  public static LanguageModel build(TrainingSpec spec, Communicator tp, Communicator cp, int ppRank) {
    return buildWith(spec, stack(spec, tp, cp, null), ppRank);
  }

  /**
   * A training rank's model and the handles its step reads, as one value: the sequence split over {@code dist.cp()},
   * the layers over {@code dist.tp()}, the experts over {@code expertGroups}' ep group (replicated across its edp).
   */
  public static BuiltModel forTraining(TrainingSpec spec, Distributed dist, HybridGroups expertGroups) {
    LayerStack s = stack(spec, dist.tp(), dist.cp(), expertGroups.shard());
    LanguageModel model = buildWith(spec, s, dist.coord().pp());
    RouterLossStages.poolOverContext(model, dist.cp());
    ExpertGroups experts = s.experts() == null || s.experts().expertParameters().isEmpty() ? ExpertGroups.none()
        : new ExpertGroups(s.experts().expertParameters(), expertGroups.replicate(), expertGroups.shard());
    return new BuiltModel(model, model.parameters().trainable(), s.tpOps(), s.context(), s.adapters(), s.zeroUnits(),
        expertGroups, experts);
  }

  /**
   * A frozen copy of the model as training starts ({@code model.pretrained}, else the seed's weights), split over
   * {@code tp} and {@code cp} as the policy is but never ZeRO-sharded (no optimizer owns it) and with every expert on each
   * rank (not split over ep): DPO's reference policy when it is not the LoRA policy with its adapters off (with
   * {@code train.lora}, the base and the spec's starting adapter).
   */
  public static LanguageModel frozenCopy(TrainingSpec spec, Communicator tp, Communicator cp) {
    LanguageModel copy = buildWith(spec, stack(spec, tp, cp, null, 0), 0); // base + its adapter, as the policy's but unsharded
    for (Param p : copy.parameters().list()) copy.parameters().freeze(p.name());
    return copy;
  }

  private static LanguageModel buildWith(TrainingSpec spec, LayerStack stack, int ppRank) {
    Layers layers = stack.top();
    ModelFactory f = ModelFactories.lookup(spec.model().factory());
    LanguageModel model = f.create(spec, new ModelContext(spec.train().seed(), layers, spec.parallel(), ppRank));
    if (spec.train().lora().enabled() && model.parameters().trainable().isEmpty()) {
      throw new SpecException("train.lora.targets", "model.factory=" + spec.model().factory() + " has no module named "
          + String.join(", ", spec.train().lora().targets()) + (ppRank > 0 ? " on pipeline stage " + ppRank : "")
          + "; LoRA adapts the Hugging Face projections (llama-family models); name targets the model has");
    }
    // train.recompute on one unsplit rank: each layer checkpointed (its input kept), not the whole model recomputed
    if (model instanceof dev.weft.models.decoder.Decoder d && spec.checkpointsEachLayer(d.config().moe() != null)) {
      d.checkpointLayers();
    }
    FrozenBase frozenBase = stack.adapters() == null ? null : stack.adapters().frozenBase();
    if (spec.model().hasPretrained()) {
      Parameters ps = model.parameters();
      List<Param> base = spec.train().lora().enabled() ? ps.list().stream().filter(q -> ps.isFrozen(q.name())).toList() : ps.list();
      // a compressed base: each weight compressed from the file's tensor as read, so no fp32 copy of it ever exists
      PretrainedWeights.loadInto(base, HuggingFaceFormat.of(f), Path.of(spec.model().pretrained()),
          frozenBase == null ? (p, v) -> false : frozenBase::compressFrom);
    }
    if (frozenBase != null) frozenBase.compressAll(); // drawn, not loaded
    if (spec.train().lora().hasAdapter()) {
      PeftAdapter adapter = PeftAdapter.read(Path.of(spec.train().lora().adapter()), "train.lora.adapter");
      adapter.requireMatches(spec.train().lora());
      PretrainedWeights.copyInto(model.parameters().trainable(), adapter::weight, "train.lora.adapter");
    }
    return model;
  }

  /**
   * The whole model for evaluation alone, its matmul weights kept in {@code dtype} (16-bit, the file's): each is the
   * file's memory map, not a copy (norms stay fp32). Run it under autocast of that dtype; nothing may train it.
   */
  public static LanguageModel frozenWhole(TrainingSpec spec, org.bytedeco.pytorch.global.torch.ScalarType dtype) {
    if (!spec.model().hasPretrained() || spec.train().lora().enabled()) {
      throw new IllegalArgumentException("frozenWhole builds a model.pretrained directory without LoRA");
    }
    return buildWith(spec, new LayerStack(new DenseLayers(Init.Draws.unset(spec.train().seed(), dtype)), null, null, null, null, null), 0);
  }

  /** The whole model in this process, unsplit (evaluation, generation, export). */
  public static LanguageModel whole(TrainingSpec spec) {
    return build(spec, null, 0);
  }
}
