package dev.weft.train;

import dev.weft.comm.Communicator;
import dev.weft.comm.ReduceOp;
import dev.weft.models.LanguageModel;
import dev.weft.models.decoder.Decoder;
import dev.weft.util.Tensors;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;

/**
 * A MoE model's per-expert load for metrics.jsonl: {@code expert_load_E}, the step's token–expert assignments to
 * expert E summed over the MoE layers, the micro-batches and the dp ranks (Σ = tokens × k × MoE layers: none
 * dropped). Every dp rank calls it (one small all-reduce) and hands the sums to its listener; a dense model or a
 * pipeline stage adds nothing.
 */
final class ExpertLoad {
  private ExpertLoad() {}

  static Map<String, Double> with(Map<String, Double> metrics, LanguageModel model, Communicator dp, StepListener listener, int rank) {
    if (!(model instanceof Decoder d) || d.config().moe() == null || d.partition().virtualStages() != 1) return metrics;
    long[] counts = d.takeStepLoad();
    double[] load = new double[d.config().moe().experts()];
    for (int e = 0; e < counts.length; e++) load[e] = counts[e];
    Tensor t = Tensors.ofDoubles(load);
    if (dp.size() > 1) dp.allReduce(t, ReduceOp.SUM);
    double[] sum = Tensors.toDoubles(t);
    listener.onExpertLoad(rank, sum.clone()); // every rank's Prometheus gauge
    Map<String, Double> out = new LinkedHashMap<>(metrics);
    for (int e = 0; e < sum.length; e++) out.put("expert_load_" + e, sum[e]);
    return out;
  }
}
