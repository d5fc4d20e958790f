package dev.weft.train;

import dev.weft.comm.Distributed;
import dev.weft.comm.ReduceOp;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Tensors;
import java.nio.file.Path;
import org.bytedeco.pytorch.Tensor;

/**
 * Stops a run whose numbers stopped being numbers, on every rank at the same step. A step's loss is reduced as
 * four sums (finite losses, ranks holding a loss, ranks whose loss is NaN, ranks whose loss is infinite), so a
 * pipeline stage that computes no loss is never taken for a NaN one, nor a NaN for 0. A non-finite global
 * gradient norm (the same number on every rank) diverges the run too, except the fp16 loss scaler's overflow
 * skips, of which {@code precision.maxConsecutiveSkips} in a row are allowed.
 */
final class Divergence {
  private final boolean scaled; // fp16: a non-finite gradient norm is first the loss scaler's overflow
  private final int maxConsecutiveSkips;
  private int consecutiveSkips;

  Divergence(boolean scaled, int maxConsecutiveSkips) {
    this.scaled = scaled;
    this.maxConsecutiveSkips = maxConsecutiveSkips;
  }

  /**
   * The cause when a step with this global gradient norm must stop the run, null when it may go on (stepped, or
   * skipped by the fp16 scaler within its bound).
   */
  String gradientCause(double gradNorm) {
    if (Double.isFinite(gradNorm)) {
      consecutiveSkips = 0;
      return null;
    }
    if (scaled && ++consecutiveSkips <= maxConsecutiveSkips) return null;
    return scaled ? "the fp16 loss scaler skipped " + consecutiveSkips + " steps in a row for a non-finite gradient norm ("
        + gradNorm + "), more than precision.maxConsecutiveSkips=" + maxConsecutiveSkips
        : "the gradient norm is " + gradNorm;
  }

  /** This rank's part of a step's loss: {finite loss, holds a loss, NaN, infinite}. */
  static double[] terms(boolean holdsLoss, double loss) {
    if (!holdsLoss) return new double[] {0, 0, 0, 0};
    return new double[] {Double.isFinite(loss) ? loss : 0, 1, Double.isNaN(loss) ? 1 : 0, Double.isInfinite(loss) ? 1 : 0};
  }

  /** The mean loss of the summed terms; NaN when any rank's loss was not finite. */
  static double mean(double[] summed) {
    return summed[2] + summed[3] > 0 || summed[1] == 0 ? Double.NaN : summed[0] / summed[1];
  }

  /**
   * The step's mean loss over the ranks that hold one: summed over the pipeline group, then data parallel (tensor
   * parallel peers hold the same loss); {@code out[0]} receives the summed terms, with the summed {@code stopFlag}
   * of every rank (tensor-parallel peers included) last.
   */
  static double reduce(Distributed dist, boolean holdsLoss, double localLoss, double stopFlag, double[][] out) {
    double[] terms = java.util.Arrays.copyOf(terms(holdsLoss, localLoss), 5);
    terms[4] = stopFlag; // rides along: whether any rank was told to stop (PreemptStop)
    Tensor t = Tensors.ofDoubles(terms);
    dist.pp().allReduce(t, ReduceOp.SUM);
    dist.dp().allReduce(t, ReduceOp.SUM);
    if (dist.cp().size() > 1) dist.cp().allReduce(t, ReduceOp.SUM); // each cp rank holds part of its samples' loss
    if (dist.tp().size() > 1) dist.tp().allReduce(t, ReduceOp.MAX); // tp peers hold the same loss terms; their flags differ
    out[0] = Tensors.toDoubles(t);
    return mean(out[0]);
  }

  /**
   * The cause naming the first rank whose loss was not finite, or null. Collective over the world when (and only
   * when) a loss was not finite, which every rank learns from the same sums.
   */
  static String lossCause(Distributed dist, boolean holdsLoss, double localLoss, double[] summed) {
    if (summed[2] + summed[3] == 0) return null;
    boolean bad = holdsLoss && !Double.isFinite(localLoss);
    Tensor first = Tensors.ofLongs(bad ? dist.rank() : dist.mesh().worldSize());
    dist.world().allReduce(first, ReduceOp.MIN);
    return "the loss is " + (summed[2] > 0 ? "NaN" : "infinite") + " on rank " + Tensors.toLongs(first)[0]
        + (summed[2] + summed[3] > 1 ? " (and " + (long) (summed[2] + summed[3] - 1) + " other rank(s))" : "");
  }

  /** The one line of a diverged run: the step, the causes, what to change. */
  static String message(TrainingSpec spec, long step, String lossCause, String gradCause, Path runDir) {
    String cause = lossCause != null && gradCause != null ? lossCause + " and " + gradCause : lossCause != null ? lossCause : gradCause;
    return "training diverged at step " + step + ": " + cause + "; lower train.lr (now " + spec.train().lr()
        + "), set train.clipGradNorm or train.warmup, or resume from an earlier checkpoint (summary: "
        + runDir.resolve("summary.json") + ")";
  }
}
