package dev.weft.parallel.data;

import dev.weft.models.Parameters.Param;
import dev.weft.optim.AdamArgs;
import dev.weft.optim.ShardStep;
import dev.weft.parallel.data.FlatLayout.Slot;
import dev.weft.spec.OptimizerKind;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;

/** Passes over every bucket a rank holds: the update of its shards, single-rank gradients, its buffers and their bytes. */
final class BucketPasses {
  private BucketPasses() {}

  /** The optimizer's update of each owned shard (AdamW or Adam through {@code kernel}, or SGD with momentum); under no-grad. */
  static void update(List<BucketState> states, OptimizerKind kind, AdamArgs adam, ShardStep kernel, int stage) {
    for (BucketState s : states) {
      Tensor p = s.ownedParams(), g = s.ownedGrads();
      switch (kind) {
        case ADAMW, ADAM -> kernel.adam(adam, p, g, s.m, s.v);
        case SGD -> {
          if (adam.weightDecay() > 0) g.add_(p, new Scalar(adam.weightDecay()));
          s.m.mul_(new Scalar(adam.beta1())).add_(g);
          p.add_(s.m, new Scalar(-adam.lr()));
        }
      }
      // stages 0-1 overwrite every slot when the next gradients arrive, unless backward accumulates into the slots
      if (stage >= 2 || s.gradsBound) s.grad.zero_();
    }
  }

  /** Single rank: move gradients into the flat buffers without communication. */
  static void localGradients(List<BucketState> states, List<Param> params, int stage) {
    try (NoGradGuard ng = new NoGradGuard()) {
      for (BucketState s : states) {
        for (Slot slot : s.b.slots()) {
          Tensor p = params.get(slot.param()).tensor();
          Tensor g = p.grad();
          Tensor dst = s.grad.narrow(0, slot.offset(), slot.numel()); // one rank: its shard is the whole bucket
          if (g.defined() && s.gradsBound && g.is_alias_of(s.grad)) continue; // accumulated in place: already there
          if (g.defined()) {
            if (stage >= 2) dst.add_(g.reshape(-1));
            else dst.copy_(g.reshape(-1));
            if (s.gradsBound) s.bindGrad(slot); // a gradient set from outside autograd's accumulation: back to the view
            else p.mutable_grad().reset();
          } else if (stage < 2) {
            dst.zero_();
          }
        }
      }
    }
  }

  /** Per parameter: is its name in {@code names}. */
  static boolean[] named(List<Param> params, java.util.Set<String> names) {
    boolean[] out = new boolean[params.size()];
    for (int i = 0; i < out.length; i++) out[i] = names.contains(params.get(i).name());
    return out;
  }

  /** Every flat buffer, by name ({@code bucket 3 gradients}). */
  static Map<String, Tensor> buffers(List<BucketState> states) {
    Map<String, Tensor> out = new LinkedHashMap<>();
    for (int i = 0; i < states.size(); i++) {
      BucketState s = states.get(i);
      if (s.flat != null) out.put("bucket " + i + " parameters", s.flat);
      if (s.master != null) out.put("bucket " + i + " parameter shard", s.master);
      out.put("bucket " + i + " gradients", s.grad);
      out.put("bucket " + i + " exp_avg", s.m);
      out.put("bucket " + i + " exp_avg_sq", s.v);
    }
    return out;
  }

  /** Bytes held for parameters (the shard only, at stage 3), gradients and optimizer state. */
  static ShardedOptimizer.Memory memory(List<BucketState> states, int stage) {
    long p = 0, g = 0, o = 0;
    for (BucketState s : states) {
      p += 4 * (stage == 3 ? s.shardLen : s.b.padded());
      g += 4 * s.grad.numel();
      o += 4 * (s.m.numel() + s.v.numel());
    }
    return new ShardedOptimizer.Memory(p, g, o);
  }
}
