package dev.weft.parallel.context;

import dev.weft.comm.Communicator;
import java.util.Arrays;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorTensorHook;
import org.bytedeco.pytorch.global.torch;

/**
 * Ulysses' all-to-all between heads and sequence over the cp group, differentiable through a tensor hook:
 * {@link #toSequence} turns [B, H, T/cp, d] (all heads, this rank's tokens) into [B, H/cp, T, d] (this rank's
 * heads, every rank's tokens in rank order), {@link #toHeads} the reverse; each is the other's backward. The
 * result is {@code received + (x − x.detach())} reshaped, so x's gradient arrives reshaped and the hook
 * replaces it by the inverse exchange of the true one.
 */
final class HeadExchange {
  private final Communicator cp;
  private final CommTally tally;
  private final TensorTensorHook sequenceGradToHeads, headsGradToSequence;

  HeadExchange(Communicator cp, CommTally tally) {
    this.cp = cp;
    this.tally = tally;
    sequenceGradToHeads = new TensorTensorHook() { // held for the run: libtorch holds hooks weakly
      @Override
      public TensorBase call(TensorBase g) { // [B, H, t, d] holding y's gradient [B, H/cp, cp·t, d] element for element
        Tensor x = new Tensor(g);
        dev.weft.util.HookArgument.done(g);
        int n = cp.size();
        return headsData(x.reshape(x.size(0), x.size(1) / n, n * x.size(2), x.size(3)));
      }
    };
    headsGradToSequence = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) { // [B, H/cp, T, d] holding x's gradient [B, H, T/cp, d] element for element
        Tensor y = new Tensor(g);
        dev.weft.util.HookArgument.done(g);
        int n = cp.size();
        return sequenceData(y.reshape(y.size(0), y.size(1) * n, y.size(2) / n, y.size(3)));
      }
    };
  }

  /** [B, H, t, d] → [B, H/cp, cp·t, d]. */
  Tensor toSequence(Tensor x) { return linked(x, sequenceData(x.detach()), sequenceGradToHeads); }

  /** [B, H/cp, cp·t, d] → [B, H, t, d]. */
  Tensor toHeads(Tensor y) { return linked(y, headsData(y.detach()), headsGradToSequence); }

  /**
   * The value {@code data} with {@code x} as its autograd input: x's view is reshaped onto data's shape, so the
   * gradient reaching the view is data's gradient in x's shape, which {@code back} exchanges the other way.
   */
  private static Tensor linked(Tensor x, Tensor data, TensorTensorHook back) {
    if (!x.requires_grad()) return data;
    Tensor xv = x.view_as(x);
    xv.register_hook(back);
    Tensor zero = xv.sub(xv.detach()).reshape(data.sizes().vec().get());
    return data.add(zero);
  }

  /** Forward data of {@link #toSequence}; also the gradient of {@link #toHeads} (arriving in [B, H, t, d]). */
  private Tensor sequenceData(Tensor x) {
    int n = cp.size();
    long b = x.size(0), h = x.size(1), t = x.size(2), d = x.size(3);
    Tensor in = x.reshape(b, n, h / n, t, d).permute(1, 0, 2, 3, 4).contiguous(); // dim 0: the rank the heads go to
    Tensor out = torch.empty_like(in); // dim 0: the rank the tokens come from
    exchange(out, in);
    return out.permute(1, 2, 0, 3, 4).reshape(b, h / n, n * t, d);
  }

  /** Forward data of {@link #toHeads}; also the gradient of {@link #toSequence} (arriving as [B, H/cp, T, d] data). */
  private Tensor headsData(Tensor y) {
    int n = cp.size();
    long b = y.size(0), hl = y.size(1), t = y.size(2) / n, d = y.size(3);
    Tensor in = y.reshape(b, hl, n, t, d).permute(2, 0, 1, 3, 4).contiguous(); // dim 0: the rank whose tokens these are
    Tensor out = torch.empty_like(in); // dim 0: the rank whose heads these are
    exchange(out, in);
    return out.permute(1, 0, 2, 3, 4).reshape(b, n * hl, t, d);
  }

  private void exchange(Tensor out, Tensor in) {
    long[] splits = new long[cp.size()];
    Arrays.fill(splits, 1);
    long t0 = System.nanoTime();
    cp.allToAll(out, in, splits, splits);
    tally.waited(t0);
    tally.moved(in.select(0, 0), cp.size() - 1); // all but the rank's own slice

  }
}
