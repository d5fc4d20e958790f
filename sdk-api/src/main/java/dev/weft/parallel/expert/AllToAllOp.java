package dev.weft.parallel.expert;

import dev.weft.comm.Communicator;
import dev.weft.util.Tensors;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorTensorHook;
import org.bytedeco.pytorch.global.torch;

/**
 * A differentiable all-to-all of rows over the ep group, built from hooks (Java cannot subclass an autograd
 * Function; see TpOps): forward sends {@code send[r]} rows to rank r and receives {@code recv[r]} from it; backward
 * sends the output's gradient back the same way reversed. The output is the received rows (detached) plus a
 * zero-valued link to a view of the input: a hook on the output catches its gradient, and the hook on the input's
 * view (which runs after, the link depending on the output) replaces the link's zero gradient with the reverse
 * all-to-all of the caught one. A call's hooks are kept until its backward has run them.
 */
final class AllToAllOp {
  private final Communicator ep;
  private final Set<Object> pending = ConcurrentHashMap.newKeySet();

  AllToAllOp(Communicator ep) { this.ep = ep; }

  /** x [Σ send, H] → [Σ recv, H]. */
  Tensor exchange(Tensor x, long[] send, long[] recv) {
    Tensor in = x.detach().contiguous();
    Tensor out = Tensors.emptyLike(in, in.scalar_type(), sum(recv), x.size(1));
    ep.allToAll(out, in, recv, send);
    if (!x.requires_grad()) return out;
    Tensor view = x.view_as(x);
    Tensor[] caught = new Tensor[1];
    TensorTensorHook catchGrad = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        caught[0] = new Tensor(g).contiguous().clone();
        return g;
      }
    };
    TensorTensorHook[] back = new TensorTensorHook[1];
    back[0] = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase zero) {
        Tensor g = Tensors.emptyLike(caught[0], caught[0].scalar_type(), sum(send), x.size(1));
        ep.allToAll(g, caught[0], send, recv);
        pending.remove(catchGrad);
        pending.remove(back[0]);
        return g;
      }
    };
    pending.add(catchGrad);
    pending.add(back[0]);
    view.register_hook(back[0]);
    Tensor y = out.add(view.sum().mul(new Scalar(0.0)));
    y.register_hook(catchGrad);
    return y;
  }

  static long sum(long[] a) {
    long s = 0;
    for (long v : a) s += v;
    return s;
  }
}
