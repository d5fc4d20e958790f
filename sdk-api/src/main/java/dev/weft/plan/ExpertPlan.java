package dev.weft.plan;

import dev.weft.models.ModelFactories;
import dev.weft.models.decoder.DecoderConfig;
import dev.weft.models.decoder.DecoderFamily;
import dev.weft.models.moe.MoeConfig;
import dev.weft.spec.ParallelSpec;
import dev.weft.spec.TrainingSpec;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code weft plan}'s mixture-of-experts line: the routed experts' parameters, what one rank holds of them at the
 * spec's ep (and tp), and the all-to-all bytes a rank sends per step under expert parallelism: per MoE layer and
 * micro-batch, the (ep − 1)/ep of its token–expert rows (tokens × k × hidden) that leave the rank for dispatch, as
 * many back for the combine, and both again in backward (routing assumed even). Pure.
 */
public final class ExpertPlan {
  private ExpertPlan() {}

  /** Empty for a model without MoE layers (or one the planner cannot read). */
  public static Optional<String> line(TrainingSpec spec) {
    DecoderConfig c = moeConfig(spec);
    if (c == null) return Optional.empty();
    MoeConfig m = c.moe();
    ParallelSpec p = spec.parallel();
    double[] perLayer = routedPerLayer(c);
    long sparse = Arrays.stream(perLayer).filter(x -> x > 0).count();
    double experts = Arrays.stream(perLayer).sum();
    double perRank = experts / p.ep() / p.tp();
    double act = "fp32".equals(spec.precision().dtype()) ? 4 : 2;
    double tokens = (double) spec.train().globalBatch() / p.dp() * spec.data().seqLen(); // this rank's, all micro-batches
    double allToAll = sparse * 4.0 * (p.ep() - 1) / p.ep() * tokens * m.topK() * c.hidden() * act;
    return Optional.of(String.format(Locale.ROOT, "experts: %d per MoE layer × %d layers, top-%d, %s parameters; at ep=%d%s"
            + " a rank holds %d per layer (%s parameters, %s with fp32 gradients and Adam moments before ZeRO, as the table"
            + " counts them) and sends %s per step by all-to-all (dispatch and combine, forward and backward)",
        m.experts(), sparse, m.topK(), Bytes.count(experts), p.ep(), p.tp() > 1 ? " tp=" + p.tp() : "", m.experts() / p.ep(),
        Bytes.count(perRank), Bytes.human(16 * perRank), Bytes.human(allToAll)));
  }

  /** The routed experts' parameters of the whole model (0 for a dense one): what expert parallelism splits. */
  static double routedParameters(TrainingSpec spec) { return Arrays.stream(routedPerLayer(spec)).sum(); }

  /** The routed experts' parameters of each layer (0 for a dense layer; empty for a model without MoE layers). */
  static double[] routedPerLayer(TrainingSpec spec) {
    DecoderConfig c = moeConfig(spec);
    return c == null ? new double[0] : routedPerLayer(c);
  }

  private static double[] routedPerLayer(DecoderConfig c) {
    double each = c.moe().experts() * 3.0 * c.hidden() * c.moe().expertHidden();
    double[] out = new double[c.layers()];
    for (int i = 0; i < out.length; i++) out[i] = c.moe().sparse(i) ? each : 0;
    return out;
  }

  private static DecoderConfig moeConfig(TrainingSpec spec) {
    if (!(ModelFactories.lookup(spec.model().factory()) instanceof DecoderFamily family)) return null;
    DecoderConfig c = family.config(spec);
    return c.moe() == null ? null : c;
  }
}
