package dev.weft.parallel.context;

import dev.weft.comm.Communicator;
import dev.weft.util.Tensors;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorTensorHook;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * A differentiable all-gather over the cp group (custom autograd functions are out of reach from Java):
 * forward, every rank's tensor gathered in rank order; backward, the gradient of the gathered tensor
 * reduce-scattered, so each rank's input receives the sum of every rank's gradient for its part. The
 * gathered tensor is the received data with this rank's slice replaced by {@code data + (x − x.detach())}, so
 * only that slice leads back to x; a hook on the gathered tensor swaps that slice's gradient for the
 * reduce-scattered one before autograd hands it on.
 */
final class KvGather {
  private final Communicator cp;
  private final CommTally tally;
  private final TensorTensorHook reduceScatter;

  KvGather(Communicator cp, CommTally tally) {
    this.cp = cp;
    this.tally = tally;
    this.reduceScatter = new TensorTensorHook() { // held for the run: libtorch holds hooks weakly
      @Override
      public TensorBase call(TensorBase g) {
        Tensor arg = new Tensor(g);
        Tensor all = arg.contiguous(); // [cp, …]: every rank's part's gradient on this rank
        arg.close();
        dev.weft.util.HookArgument.done(g);
        Tensor mine = torch.empty_like(all.select(0, 0));
        long t0 = System.nanoTime();
        cp.reduceScatter(mine, all.flatten(0, 1)); // the group's chunks lie along dim 0
        tally.waited(t0);
        tally.moved(mine, cp.size() - 1);
        Tensor out = all.clone();
        out.select(0, cp.rank()).copy_(mine);
        return out;
      }
    };
  }

  /** {@code x} [...] of every rank, stacked in rank order: [cp, ...]. */
  Tensor gather(Tensor x) {
    Tensor mine = x.detach().contiguous();
    long[] shape = mine.sizes().vec().get();
    long[] all = shape.clone();
    all[0] *= cp.size(); // the group concatenates along dim 0
    Tensor flat = Tensors.emptyLike(mine, mine.scalar_type(), all);
    long t0 = System.nanoTime();
    cp.allGather(flat, mine);
    tally.waited(t0);
    tally.moved(mine, cp.size() - 1);
    Tensor data = flat.view(stacked(shape));
    if (!x.requires_grad()) return data;
    int r = cp.rank();
    TensorVector parts = new TensorVector();
    for (int i = 0; i < cp.size(); i++) parts.push_back(i == r ? data.select(0, r).add(x.sub(x.detach())) : data.select(0, i));
    Tensor linked = torch.stack(parts, 0);
    linked.register_hook(reduceScatter);
    return linked;
  }

  /** [cp, shape...]. */
  private long[] stacked(long[] shape) {
    long[] out = new long[shape.length + 1];
    out[0] = cp.size();
    System.arraycopy(shape, 0, out, 1, shape.length);
    return out;
  }
}
