package dev.weft.parallel.expert;

import dev.weft.comm.Communicator;
import dev.weft.util.Tensors;
import dev.weft.parallel.tensor.BackwardHolds;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorTensorHook;

/**
 * A differentiable all-to-all of rows over the ep group, built from hooks (Java cannot subclass an autograd
 * Function; see TpOps): forward sends {@code send[r]} rows to rank r and receives {@code recv[r]} from it; backward
 * sends the output's gradient back the same way reversed. The output is the received rows (detached) plus a
 * zero-valued link to a view of the input: a hook on the output catches its gradient, and the hook on the input's
 * view (which runs after, the link depending on the output) replaces the link's zero gradient with the reverse
 * all-to-all of the caught one. A pipeline runs each forward inside a PointerScope that closes before the backward,
 * so a call's hooks are held ({@link BackwardHolds}) until its backward has run them, and the backward touches no
 * tensor of the forward.
 */
final class AllToAllOp {
  private final Communicator ep;
  private final BackwardHolds holds = new BackwardHolds();

  AllToAllOp(Communicator ep) { this.ep = ep; }

  /** x [Σ send, H] → [Σ recv, H]. */
  Tensor exchange(Tensor x, long[] send, long[] recv) {
    Tensor in = x.detach().contiguous();
    Tensor out = Tensors.emptyLike(in, in.scalar_type(), sum(recv), x.size(1));
    ep.allToAll(out, in, recv, send);
    if (!x.requires_grad()) return out;
    Reverse back = new Reverse(x.size(1), send, recv);
    holds.hold(back.held);
    Tensor view = x.view_as(x);
    view.register_hook(back.sendBack);
    Tensor y = out.add(view.sum().mul(new Scalar(0.0)));
    y.register_hook(back.catchGrad);
    return y;
  }

  /** One call's backward: the output's gradient, caught, goes back to where the rows came from. */
  private final class Reverse {
    private final long width;
    private final long[] send, recv;
    private Tensor caught;

    Reverse(long width, long[] send, long[] recv) {
      this.width = width;
      this.send = send;
      this.recv = recv;
    }

    final TensorTensorHook catchGrad = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        Tensor arg = new Tensor(g);
        caught = arg.contiguous().clone();
        arg.close();
        dev.weft.util.HookArgument.done(g);
        return new TensorBase(); // undefined: the gradient passes on unchanged
      }
    };

    final TensorTensorHook sendBack = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase zero) {
        dev.weft.util.HookArgument.done(zero);
        Tensor g = Tensors.emptyLike(caught, caught.scalar_type(), sum(send), width);
        ep.allToAll(g, caught, send, recv);
        caught = null;
        holds.finished(held);
        return g;
      }
    };

    final BackwardHolds.Held held = new BackwardHolds.Held(catchGrad, sendBack);
  }

  static long sum(long[] a) {
    long s = 0;
    for (long v : a) s += v;
    return s;
  }
}
