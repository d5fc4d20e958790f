package dev.weft.parallel.tensor;

import static org.bytedeco.pytorch.global.torch.linear;

import dev.weft.models.DeferredWeightGrads;
import org.bytedeco.pytorch.GradMode;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorOptional;
import org.bytedeco.pytorch.TensorTensorHook;

/**
 * A column-parallel linear layer, x·Wᵀ + b with W split on its output features, whose backward sums
 * the input gradient over the group while the weight gradient is computed (Megatron's asynchronous
 * gradient all-reduce; under sequence parallelism the reduce-scatter).
 *
 * <p>Autograd would compute both gradients in one node, before any hook sees the input gradient, so
 * the layer runs on the detached weight (autograd computes only the input gradient) and a hook on the
 * input computes the weight gradient from the saved input and the output gradient between starting
 * the collective and waiting for it. The weight still receives it through autograd — its
 * accumulation and the data-parallel bucket hooks stay as they are — along a zero-valued link
 * (the weight's sum minus itself, util.ZeroLink, added to the bias) whose hook substitutes it. The link is built
 * before the input's view: the CPU engine runs ready nodes latest-created first, so the link's
 * backward comes after the input's hook. Should it ever come first, the weight gradient is computed
 * there instead (correct, not overlapped).
 */
final class ColumnLinear {
  private final TpOps ops;
  private final boolean sequenceParallel;

  ColumnLinear(TpOps ops, boolean sequenceParallel) {
    this.ops = ops;
    this.sequenceParallel = sequenceParallel;
  }

  /** {@code w} [out/tp, in], {@code b} [out/tp] or null. */
  Tensor forward(Tensor x, Tensor w, Tensor b) {
    // under a split backward (zero-bubble pipelines) dW waits for W: the input's collective has nothing to overlap
    if (ops.size() == 1 || !GradMode.is_enabled() || !x.requires_grad() || !w.requires_grad() || DeferredWeightGrads.recording()) {
      return DeferredWeightGrads.linear(input(x), w, b);
    }
    Pass pass = new Pass(w.scalar_type());
    Tensor wv = w.view_as(w);
    wv.register_hook(pass.weightHook);
    Tensor link = dev.weft.util.ZeroLink.of(wv).to(w.scalar_type()).reshape(1);
    Tensor bias = b == null ? link : b.add(link);
    Tensor in = sequenceParallel ? ops.gatherSequenceUnhooked(x) : x;
    Tensor xin = in.view_as(in);
    xin.register_hook(pass.inputHook);
    pass.keepInput(in.detach());
    Tensor y = linear(xin, w.detach(), new TensorOptional(bias));
    y.register_hook(pass.outputHook);
    ops.holds().hold(pass.held);
    return y;
  }

  /** The input as every rank of the group multiplies it: gathered over the sequence, or through f (all-reduce of its gradient). */
  Tensor input(Tensor x) { return sequenceParallel ? ops.gatherSequence(x) : ops.copyToTp(x); }

  /** One forward call's backward state and hooks. */
  private final class Pass {
    final ScalarType weightType; // not the weight itself: a PointerScope may free its wrapper before backward
    Tensor input;
    boolean inputRetained;
    Tensor outputGrad;
    Tensor weightGrad;
    int fired;

    Pass(ScalarType weightType) { this.weightType = weightType; }

    final TensorTensorHook outputHook = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        outputGrad = new Tensor(g);
        dev.weft.util.HookArgument.done(g);
        fired();
        return new TensorBase(); // undefined: the gradient passes on unchanged
      }
    };

    // the input gradient is this layer's own (its only consumer is the linear above): reduce it in place
    final TensorTensorHook inputHook = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        Tensor grad = new Tensor(g);
        dev.weft.util.HookArgument.done(g);
        TpOps.PendingGrad summed = startInputCollective(grad.is_contiguous() ? grad : grad.contiguous());
        if (weightGrad == null) {
          weightGrad = weightGradient();
          ops.countOverlapped();
        }
        Tensor out = summed.await();
        fired();
        return out;
      }
    };

    final TensorTensorHook weightHook = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase zero) {
        dev.weft.util.HookArgument.done(zero);
        if (weightGrad == null) weightGrad = weightGradient();
        Tensor out = weightGrad;
        weightGrad = null;
        outputGrad = null;
        fired();
        return out;
      }
    };

    final BackwardHolds.Held held = new BackwardHolds.Held(outputHook, inputHook, weightHook);

    /** The input outlives a PointerScope closing between forward and backward, until dW is computed. */
    void keepInput(Tensor x) {
      input = x;
      inputRetained = BackwardHolds.scoped(x);
      if (inputRetained) x.retainReference();
    }

    /** dW = dYᵀ·X over every token, in the output gradient's precision, stored in the weight's. */
    Tensor weightGradient() {
      try (NoGradGuard ng = new NoGradGuard()) {
        long out = outputGrad.size(-1), in = input.size(-1);
        Tensor dy = outputGrad.reshape(-1, out);
        Tensor x = input.reshape(-1, in).to(dy.scalar_type());
        Tensor dw = dy.t().mm(x).to(weightType);
        if (inputRetained) input.releaseReference();
        input = null;
        return dw;
      }
    }

    private void fired() {
      if (++fired == 3) ops.holds().finished(held);
    }
  }

  private TpOps.PendingGrad startInputCollective(Tensor grad) {
    if (sequenceParallel) return ops.startReduceScatterPlaced(grad, true);
    var op = ops.startAllReduce(grad);
    return () -> {
      ops.await(op);
      return grad;
    };
  }
}
