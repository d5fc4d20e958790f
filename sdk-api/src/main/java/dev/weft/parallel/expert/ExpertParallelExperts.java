package dev.weft.parallel.expert;

import dev.weft.comm.Communicator;
import dev.weft.models.Experts;
import dev.weft.models.Layers;
import dev.weft.models.LocalExperts;
import dev.weft.util.Tensors;
import java.util.List;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptional;
import org.bytedeco.pytorch.global.torch;

/**
 * Routed experts split over the ep group: this rank holds experts {@code [rank·E/ep, (rank+1)·E/ep)}. A forward
 * sorts its assignments by expert, exchanges the per-expert counts (one all-to-all), dispatches the rows to the
 * experts' ranks (all-to-all with uneven counts), runs its own experts on what it received, sends the outputs
 * back the same way and adds them, weighted, to their tokens. Dropless: no capacity, every assignment is
 * processed. Both all-to-alls are differentiable ({@link AllToAllOp}).
 */
final class ExpertParallelExperts implements Experts {
  private final Communicator ep;
  private final AllToAllOp a2a;
  private final LocalExperts mine;
  private final int experts, local;
  private long[] counts = new long[0];

  ExpertParallelExperts(Layers layers, Communicator ep, String prefix, List<String> parts, int count, long in, long hidden, double std) {
    if (count % ep.size() != 0) throw new IllegalArgumentException(count + " experts do not split over " + ep.size() + " ep ranks");
    this.ep = ep;
    this.a2a = new AllToAllOp(ep);
    this.experts = count;
    this.local = count / ep.size();
    this.mine = new LocalExperts(layers, prefix, parts, ep.rank() * local, local, in, hidden, std);
  }

  @Override
  public Tensor forward(Tensor x, Tensor index, Tensor weight) {
    long k = index.size(1);
    Tensor flat = index.reshape(-1);
    Tensor order = torch.argsort(flat, true, 0, false);
    counts = Tensors.toLongs(torch.bincount(flat, new TensorOptional(), experts));
    DispatchPlan plan = DispatchPlan.of(counts, exchangeCounts(counts), local);
    Tensor token = order.floor_divide(new Scalar(k));
    Tensor received = a2a.exchange(x.index_select(0, token), plan.send(), plan.recv());
    Tensor byExpert = received.index_select(0, Tensors.ofLongs(plan.order()).to(received.device(), org.bytedeco.pytorch.global.torch.ScalarType.Long));
    Tensor outputs = mine.run(byExpert, plan.perExpert())
        .index_select(0, Tensors.ofLongs(plan.inverse()).to(received.device(), org.bytedeco.pytorch.global.torch.ScalarType.Long));
    Tensor back = a2a.exchange(outputs, plan.recv(), plan.send());
    Tensor y = back.mul(weight.reshape(-1).index_select(0, order).unsqueeze(1));
    return torch.zeros_like(x).index_add(0, token, y);
  }

  /** Every rank's counts for this rank's experts: [source][local expert]. */
  private long[][] exchangeCounts(long[] mineCounts) {
    int ranks = ep.size();
    double[] send = new double[experts];
    for (int e = 0; e < experts; e++) send[e] = mineCounts[e];
    Tensor out = Tensors.zeros(org.bytedeco.pytorch.global.torch.ScalarType.Double, (long) ranks * local);
    long[] splits = new long[ranks];
    java.util.Arrays.fill(splits, local);
    ep.allToAll(out, Tensors.ofDoubles(send), splits, splits);
    double[] got = Tensors.toDoubles(out);
    long[][] from = new long[ranks][local];
    for (int r = 0; r < ranks; r++) for (int e = 0; e < local; e++) from[r][e] = Math.round(got[r * local + e]);
    return from;
  }

  @Override public long[] lastCounts() { return counts.clone(); }
}
