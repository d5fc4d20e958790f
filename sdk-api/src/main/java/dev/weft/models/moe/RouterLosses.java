package dev.weft.models.moe;

import dev.weft.util.Tensors;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * What a forward's routers saw, pooled over its MoE layers as transformers' {@code load_balancing_loss_func}
 * pools them: per expert the count of assignments and the sum of router probabilities over all rows (tokens
 * × layers). aux = E · Σ_e (count_e / rows) · (probSum_e / rows); the z-loss is the mean over the same rows of
 * logsumexp(router logits)². Counts also feed the per-expert load metrics.
 */
public final class RouterLosses {
  private final int experts;
  private Tensor probSum, zSum;
  private long[] counts;
  private long rows;

  public RouterLosses(int experts) {
    this.experts = experts;
    clear();
  }

  public void clear() {
    probSum = null;
    zSum = null;
    counts = new long[experts];
    rows = 0;
  }

  /** One MoE layer's router: logits [N, E], probabilities [N, E], the experts' assignment counts. */
  void add(Tensor logits, Tensor probs, long[] assigned) {
    Tensor p = probs.sum(0);
    Tensor z = torch.logsumexp(logits, new long[] {-1}, false).square().sum();
    probSum = probSum == null ? p : probSum.add(p);
    zSum = zSum == null ? z : zSum.add(z);
    for (int e = 0; e < experts; e++) counts[e] += assigned[e];
    rows += logits.size(0);
  }

  /**
   * What another pipeline stage's routers saw of the same micro-batch: {@code sums} [E + 1] holds its probability
   * sums and its z sum (a leaf whose gradient goes back to that stage), {@code tally} its {@link #tally}.
   */
  public void addStage(Tensor sums, double[] tally) {
    Tensor p = sums.narrow(0, 0, experts), z = sums.select(0, experts);
    probSum = probSum == null ? p : probSum.add(p);
    zSum = zSum == null ? z : zSum.add(z);
    for (int e = 0; e < experts; e++) counts[e] += Math.round(tally[e]);
    rows += Math.round(tally[experts]);
  }

  /** Replaces everything added with pooled statistics: {@code sums} as {@link #sums} lays them out, {@code tally} as {@link #tally}. */
  public void replaceWith(Tensor sums, double[] tally) {
    clear();
    addStage(sums, tally);
  }

  /** The counts per expert and then the rows, as doubles: what crosses ranks (a collective's payload) beside {@link #sums}. */
  public double[] tally() {
    double[] out = new double[experts + 1];
    for (int e = 0; e < experts; e++) out[e] = counts[e];
    out[experts] = rows;
    return out;
  }

  /** This stage's probability sums and z sum, [E + 1] and differentiable (undefined before any router ran). */
  public Tensor sums() { return rows == 0 ? new Tensor() : torch.cat(new org.bytedeco.pytorch.TensorVector(probSum, zSum.view(1))); }

  /** Router rows (tokens × MoE layers) since the last {@link #clear}. */
  public long rows() { return rows; }

  /** Assignments per expert since the last {@link #clear} (Σ = rows × k). */
  public long[] counts() { return counts.clone(); }

  /** aux · auxCoef + z · zCoef over what was added (a zero scalar where no router ran). */
  public Tensor loss(double auxCoef, double zCoef) {
    if (rows == 0) return torch.zeros(1).sum();
    double[] f = new double[experts];
    for (int e = 0; e < experts; e++) f[e] = (double) counts[e] / rows;
    Tensor fraction = Tensors.ofDoubles(f).to(probSum.device(), probSum.scalar_type());
    Tensor aux = fraction.mul(probSum).sum().mul(new Scalar((double) experts / rows));
    return aux.mul(new Scalar(auxCoef)).add(zSum.mul(new Scalar(zCoef / rows)));
  }
}
