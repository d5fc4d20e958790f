package dev.weft.models.quant;

import dev.weft.models.Layers;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import java.util.function.Supplier;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.GradMode;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorOptional;
import org.bytedeco.pytorch.TensorTensorHook;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;
import static dev.weft.util.Tensors.outlive;

/**
 * A frozen linear y = x·Wᵀ + b whose weight exists only while it is used: {@code weight} makes it (dequantises a
 * compressed base) for the forward and again for the backward's dX = dY·W, so autograd never keeps it, in the dtype the
 * product runs in (bf16 under a bf16 autocast: what autocast would cast it to, made once instead of twice). The output
 * carries a zero-valued link to the input (Σx − (Σx).detach()); a hook on the output keeps dY and a hook
 * on the input replaces the link's gradient by dY·W. The hooks of a call are kept (a PointerScope may own them) until
 * its backward ran, and released at a later forward.
 */
final class RecomputedLinear implements Layers.Linear {
  private final Function<ScalarType, Tensor> weight;
  private final Supplier<Tensor> bias; // null: none
  private final Queue<Pass> done = new ConcurrentLinkedQueue<>();
  // calls whose backward has not run: their hooks strongly reachable from here (a hook no PointerScope owns is otherwise
  // garbage to the JVM while libtorch still holds it, and calling a collected hook threw a NullPointerException)
  private final java.util.Set<Pass> pending = java.util.concurrent.ConcurrentHashMap.newKeySet();

  RecomputedLinear(Function<ScalarType, Tensor> weight, Supplier<Tensor> bias) {
    this.weight = weight;
    this.bias = bias;
  }

  @Override
  public Tensor forward(Tensor x) {
    for (Pass p = done.poll(); p != null; p = done.poll()) p.release();
    dev.weft.util.HandedToAutograd.releaseEarlier();
    // the made weight and its temporaries are freed when this call ends, not with the step's scope (which would
    // keep every layer's fp32 weight alive until the step ends)
    return dev.weft.util.CallScope.run(() -> compute(x));
  }

  private Tensor compute(Tensor x) {
    if (!GradMode.is_enabled() || !x.requires_grad()) {
      try (NoGradGuard ng = new NoGradGuard()) {
        return torch.linear(x, weightOn(x, productType(x)), bias == null ? new TensorOptional() : new TensorOptional(bias.get()));
      }
    }
    Tensor y;
    try (NoGradGuard ng = new NoGradGuard()) {
      y = torch.linear(x.detach(), weightOn(x, productType(x)), bias == null ? new TensorOptional() : new TensorOptional(bias.get()));
    }
    Pass pass = new Pass();
    Tensor xv = x.view_as(x);
    xv.register_hook(pass.inputHook);
    // in y's dtype: an fp32 link would promote a 16-bit product (autocast) to fp32, unlike a plain linear's output
    Tensor out = y.add(dev.weft.util.ZeroLink.of(xv).to(y.scalar_type()));
    out.register_hook(pass.outputHook);
    pass.hold();
    pending.add(pass);
    return out;
  }



  /** The dtype {@code linear(x, W)} multiplies in: autocast's where it is on for x's device, else x's own. */
  private static ScalarType productType(Tensor x) {
    var device = x.is_cuda() ? torch.DeviceType.CUDA : torch.DeviceType.CPU;
    return torch.is_autocast_enabled(device) ? torch.get_autocast_dtype(device) : x.scalar_type();
  }

  /**
   * The weight in {@code type} on {@code like}'s device: the compressed form stays in host memory (placement moves
   * parameters only), so on an accelerator each call copies the made weight over (correct, not fast: a device kernel
   * is the fast way).
   */
  private Tensor weightOn(Tensor like, ScalarType type) {
    Tensor w = weight.apply(type);
    return w.to(like.device(), w.scalar_type());
  }

  /** One call's backward state. */
  private final class Pass {
    Tensor outputGrad;
    final TensorTensorHook outputHook = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        outputGrad = new Tensor(g);
        dev.weft.util.HookArgument.done(g);
        return new TensorBase(); // the gradient passes on unchanged
      }
    };
    final TensorTensorHook inputHook = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase link) {
        dev.weft.util.HandedToAutograd.releaseEarlier();
        Tensor dx;
        try (NoGradGuard ng = new NoGradGuard(); PointerScope call = new PointerScope()) {
          Tensor dy = outputGrad;
          dx = outlive(dy.matmul(weightOn(dy, dy.scalar_type()).to(dy.scalar_type())).to(new Tensor(link).scalar_type()));
          dy.close(); // the output's gradient is autograd's to keep or free now, not the step scope's
        }
        dev.weft.util.HookArgument.done(link);
        outputGrad = null;
        pending.remove(Pass.this);
        done.add(Pass.this);
        return dev.weft.util.HandedToAutograd.hand(dx);
      }
    };
    private Pointer[] retained = new Pointer[0];

    void hold() {
      retained = dev.weft.util.Retained.hold(outputHook, inputHook);
    }

    void release() {
      retained = dev.weft.util.Retained.release(retained);
    }
  }
}
