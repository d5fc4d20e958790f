package dev.weft.parallel.expert;

import dev.weft.comm.Communicator;
import dev.weft.comm.PendingOp;
import dev.weft.models.moe.RouterLosses;
import dev.weft.models.moe.StageRouterLink;
import dev.weft.parallel.tensor.BackwardHolds;
import dev.weft.util.Tensors;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.Device;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorTensorHook;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * The router losses of a pipeline (one chunk per stage): in its k-th training forward of a step (micro-batch k) an
 * earlier stage sends the last stage its probability and z sums, counts and rows; the last stage pools them as
 * leaves into its own, so its loss is transformers' over every MoE layer, and sends each leaf's gradient back, which
 * the earlier stage's backward takes in through a zero-valued link on its output. Messages go over the pp group
 * with tags above the activations' (each a receive that is posted when its send is already due: no cycle).
 */
public final class StageRouterStats implements StageRouterLink {
  private static final int BASE_TAG = 1 << 28;

  private final Communicator pp;
  private final int experts;
  private final Device device;
  private final BackwardHolds holds = new BackwardHolds();
  private final List<Tensor> inFlight = new ArrayList<>();
  private final List<PendingOp> sends = new ArrayList<>();
  private int forwards, gathers;

  public StageRouterStats(Communicator pp, int experts, Device device) {
    this.pp = pp;
    this.experts = experts;
    this.device = device;
  }

  @Override
  public Tensor handOn(Tensor output, RouterLosses stats) {
    int mb = forwards++;
    long rows = stats.rows();
    double[] tail = stats.tally();
    Tensor sums = rows == 0 ? Tensors.zeros(ScalarType.Double, experts + 1).to(device, ScalarType.Double) : stats.sums().detach().to(ScalarType.Double);
    send(org.bytedeco.pytorch.global.torch.cat(new TensorVector(sums, Tensors.ofDoubles(tail).to(device, ScalarType.Double))), last(), tag(mb, pp.rank(), true));
    if (rows == 0) return output; // no router here: the last stage sends no gradient back
    Tensor link = stats.sums();
    int stage = pp.rank();
    TensorTensorHook fromLast = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase zero) {
        Tensor like = new Tensor(zero);
        dev.weft.util.HookArgument.done(zero);
        Tensor g = Tensors.emptyLike(like, like.scalar_type(), experts + 1);
        pp.recv(g, last(), tag(mb, stage, false));
        return g;
      }
    };
    holds.hold(new BackwardHolds.Held(fromLast));
    link.register_hook(fromLast);
    return output.add(link.sum().mul(new Scalar(0.0)));
  }

  @Override
  public void gather(RouterLosses stats) {
    int mb = gathers++;
    for (int s = 0; s < last(); s++) {
      Tensor got = Tensors.empty(device, ScalarType.Double, 2L * experts + 2);
      pp.recv(got, s, tag(mb, s, true));
      double[] tail = Tensors.toDoubles(got.narrow(0, experts + 1, experts + 1));
      if (Math.round(tail[experts]) == 0) continue; // no router on that stage
      Tensor leaf = got.narrow(0, 0, experts + 1).to(ScalarType.Float).clone().requires_grad_(true);
      int stage = s;
      TensorTensorHook back = new TensorTensorHook() {
        @Override
        public TensorBase call(TensorBase g) {
          Tensor arg = new Tensor(g);
          send(arg.contiguous().clone(), stage, tag(mb, stage, false));
          arg.close();
          dev.weft.util.HookArgument.done(g);
          return new TensorBase(); // undefined: the gradient passes on unchanged
        }
      };
      holds.hold(new BackwardHolds.Held(back));
      leaf.register_hook(back);
      stats.addStage(leaf, tail);
    }
  }

  /** After the step's schedule: every message of the step has been taken by now, so the sends complete. */
  public void endStep() {
    for (PendingOp op : sends) op.await();
    sends.clear();
    for (Tensor t : inFlight) t.releaseReference();
    inFlight.clear();
    holds.dropAll();
    forwards = 0;
    gathers = 0;
  }

  /** An asynchronous send whose tensor outlives the action's PointerScope until {@link #endStep}. */
  private void send(Tensor t, int to, int tag) {
    if (BackwardHolds.scoped(t)) {
      t.retainReference();
      inFlight.add(t);
    }
    sends.add(pp.sendAsync(t, to, tag));
  }

  private int last() { return pp.size() - 1; }

  private int tag(int mb, int stage, boolean forward) { return BASE_TAG + (mb * pp.size() + stage) * 2 + (forward ? 0 : 1); }
}
