package dev.weft.plan;

import dev.weft.models.ModelFactories;
import dev.weft.models.decoder.DecoderConfig;
import dev.weft.models.decoder.DecoderFamily;
import dev.weft.models.moe.MoeConfig;
import dev.weft.spec.ParallelSpec;
import dev.weft.spec.TrainingSpec;
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
    if (!(ModelFactories.lookup(spec.model().factory()) instanceof DecoderFamily family)) return Optional.empty();
    DecoderConfig c = family.config(spec);
    MoeConfig m = c.moe();
    if (m == null) return Optional.empty();
    ParallelSpec p = spec.parallel();
    int sparse = 0;
    for (int i = 0; i < c.layers(); i++) if (m.sparse(i)) sparse++;
    double experts = (double) sparse * m.experts() * 3.0 * c.hidden() * m.expertHidden();
    double perRank = experts / p.ep() / p.tp();
    double act = "fp32".equals(spec.precision().dtype()) ? 4 : 2;
    double tokens = (double) spec.train().globalBatch() / p.dp() * spec.data().seqLen(); // this rank's, all micro-batches
    double allToAll = sparse * 4.0 * (p.ep() - 1) / p.ep() * tokens * m.topK() * c.hidden() * act;
    return Optional.of(String.format(Locale.ROOT, "experts: %d per MoE layer × %d layers, top-%d, %s parameters; at ep=%d%s"
            + " a rank holds %d per layer (%s parameters, %s with fp32 gradients and Adam moments before ZeRO; the table counts"
            + " every expert on every rank) and sends %s per step by all-to-all (dispatch and combine, forward and backward)",
        m.experts(), sparse, m.topK(), count(experts), p.ep(), p.tp() > 1 ? " tp=" + p.tp() : "", m.experts() / p.ep(),
        count(perRank), Bytes.human(16 * perRank), Bytes.human(allToAll)));
  }

  private static String count(double n) {
    return n >= 1e9 ? String.format(Locale.ROOT, "%.2f B", n / 1e9) : n >= 1e6 ? String.format(Locale.ROOT, "%.2f M", n / 1e6)
        : String.format(Locale.ROOT, "%.1f k", n / 1e3);
  }
}
