package dev.weft.parallel.context;

import dev.weft.comm.Communicator;
import dev.weft.comm.PendingOp;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorTensorHook;
import org.bytedeco.pytorch.global.torch;

/**
 * A differentiable step around the context-parallel ring, built from a tensor hook and detach arithmetic
 * (custom autograd functions are out of reach from Java): forward, each rank sends its tensor to the next
 * rank and receives the previous rank's; backward, the gradient goes the other way (to the rank the block
 * came from). The result is {@code received + (x − x.detach())}: the received value, linked to x by a zero
 * whose gradient a hook on x's view replaces by the exchanged one. Every rank runs the same graph, so the
 * backward exchanges meet in the same order. The forward exchange is started without waiting, so attention
 * on the block in hand overlaps it.
 */
final class RingShift {
  private static final int FORWARD_TAG = 29, BACKWARD_TAG = 30;
  private final Communicator cp;
  private final int next, prev;
  private final TensorTensorHook gradBack;
  private final CommTally tally;

  RingShift(Communicator cp, CommTally tally) {
    this.cp = cp;
    this.tally = tally;
    this.next = (cp.rank() + 1) % cp.size();
    this.prev = (cp.rank() + cp.size() - 1) % cp.size();
    this.gradBack = new TensorTensorHook() { // held by this object for the run: libtorch holds it weakly
      @Override
      public TensorBase call(TensorBase g) {
        Tensor arg = new Tensor(g);
        Tensor t = arg.contiguous();
        arg.close();
        dev.weft.util.HookArgument.done(g);
        return exchange(t, prev, next, BACKWARD_TAG);
      }
    };
  }

  /** A forward exchange in flight: {@link #await} returns the received block, differentiable. */
  final class Pending {
    private final Tensor x, received;
    private final PendingOp send, recv;

    private Pending(Tensor x) {
      this.x = x;
      Tensor out = x.detach().contiguous();
      this.received = torch.empty_like(out);
      long t0 = System.nanoTime();
      this.send = cp.sendAsync(out, next, FORWARD_TAG);
      this.recv = cp.recvAsync(received, prev, FORWARD_TAG);
      tally.moved(out);
      tally.waited(t0);
    }

    Tensor await() {
      tally.await(recv, send);
      if (!x.requires_grad()) return received;
      Tensor xv = x.view_as(x);
      xv.register_hook(gradBack);
      return received.add(xv.sub(xv.detach()));
    }
  }

  /** Starts passing {@code x} to the next rank (and receiving the previous rank's). */
  Pending start(Tensor x) { return new Pending(x); }

  /** Sends {@code t} to {@code to} and returns what {@code from} sent, waiting for both. */
  private Tensor exchange(Tensor t, int to, int from, int tag) {
    Tensor in = torch.empty_like(t);
    long t0 = System.nanoTime();
    PendingOp s = cp.sendAsync(t, to, tag);
    PendingOp r = cp.recvAsync(in, from, tag);
    r.await();
    s.await();
    tally.waited(t0);
    tally.moved(t);
    return in;
  }
}
