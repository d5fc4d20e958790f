package dev.weft.train;

import dev.weft.comm.Distributed;
import dev.weft.comm.ReduceOp;
import dev.weft.models.LanguageModel;
import dev.weft.models.decoder.Decoder;
import dev.weft.util.Tensors;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;

/**
 * A MoE model's per-expert load for metrics.jsonl: {@code expert_load_E}, the step's token–expert assignments to
 * expert E summed over the MoE layers, the micro-batches and the ranks that route different tokens or layers (dp,
 * cp, pp; Σ = tokens × k × MoE layers: none dropped). The tp ranks of a group route the same rows alike, so the
 * world's sum is divided by tp. Every rank calls it (one small all-reduce) and hands the sums to its listener.
 */
final class ExpertLoad {
  private ExpertLoad() {}

  static Map<String, Double> with(Map<String, Double> metrics, LanguageModel model, Distributed dist, StepListener listener) {
    if (!(model instanceof Decoder d) || d.config().moe() == null) return metrics;
    long[] counts = d.takeStepLoad();
    double[] load = new double[d.config().moe().experts()];
    for (int e = 0; e < counts.length; e++) load[e] = counts[e];
    Tensor t = Tensors.ofDoubles(load);
    if (dist.world().size() > 1) dist.world().allReduce(t, ReduceOp.SUM);
    double[] sum = Tensors.toDoubles(t);
    for (int e = 0; e < sum.length; e++) sum[e] /= dist.tp().size();
    listener.onExpertLoad(dist.rank(), sum.clone()); // every rank's Prometheus gauge
    Map<String, Double> out = new LinkedHashMap<>(metrics);
    for (int e = 0; e < sum.length; e++) out.put("expert_load_" + e, sum[e]);
    return out;
  }
}
