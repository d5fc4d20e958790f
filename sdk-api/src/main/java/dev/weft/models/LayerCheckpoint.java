package dev.weft.models;

import dev.weft.precision.Autocast;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.UnaryOperator;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.AutoGradMode;
import org.bytedeco.pytorch.BoolOptional;
import org.bytedeco.pytorch.GradMode;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorArrayRefOptional;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorTensorHook;
import org.bytedeco.pytorch.global.torch;
import static dev.weft.util.Tensors.outlive;

/**
 * Activation checkpointing of one layer (train.recompute on one unsplit rank): the forward runs the layer without a
 * graph, in a PointerScope of its own, and keeps only its input; the backward runs it again on that input with a graph
 * and back-propagates the output's gradient through it, which accumulates the layer's parameter gradients and gives the
 * input's. So a step holds the layer inputs and one layer's internals, not every layer's. Wired as {@code
 * RecomputedLinear} is: the output carries a zero-valued link to the input (or, when the input needs no gradient — a
 * frozen embedding's output — to a one-element anchor), a hook on the output keeps dY and a hook on the link runs the
 * recomputation (a reentrant backward, as PyTorch's reentrant checkpoint) under the autocast the forward ran under (the
 * training loop's backward runs after its autocast closed) and returns dX. The layer must compute the
 * same function twice: no state across calls (no MoE router counts, no KV cache; dropout off or reseeded).
 */
public final class LayerCheckpoint {
  private final Queue<Pass> done = new ConcurrentLinkedQueue<>();
  private final java.util.Set<Pass> pending = java.util.concurrent.ConcurrentHashMap.newKeySet(); // hooks kept reachable until their backward

  /** {@code layer(x)}, checkpointed when gradients are on; its recomputation's graph is freed as its backward ends. */
  public Tensor run(Tensor x, UnaryOperator<Tensor> layer) {
    for (Pass p = done.poll(); p != null; p = done.poll()) p.release();
    dev.weft.util.HandedToAutograd.releaseEarlier();
    if (!GradMode.is_enabled()) return layer.apply(x);
    Tensor y;
    try (PointerScope call = new PointerScope(); NoGradGuard ng = new NoGradGuard()) {
      y = outlive(layer.apply(x.detach()));
    }
    Pass pass = new Pass(layer, x, Autocast.current());
    // the link's views of x are closed with this call's scope: x's memory is the checkpoint's (Pass.input) to keep and free
    Tensor out = dev.weft.util.CallScope.run(() -> {
      Tensor linked;
      if (x.requires_grad()) {
        linked = x.view_as(x);
      } else {
        linked = torch.zeros(new long[] {1}, new org.bytedeco.pytorch.TensorOptions(x.scalar_type())).requires_grad_(true);
        pass.anchor = outlive(linked);
      }
      linked.register_hook(pass.inputHook); // on the graph: it outlives this handle
      // in y's dtype: an fp32 link would promote a 16-bit output (autocast) and change what the next layer computes
      return y.add(dev.weft.util.ZeroLink.of(linked).to(y.scalar_type()));
    });
    y.releaseReference(); // the sum holds the output: y itself freed now, not with the step's scope
    out.register_hook(pass.outputHook);
    pass.hold();
    pending.add(pass);
    return out;
  }



  /** One call's backward state: the kept input, dY once it arrives. */
  private final class Pass {
    final UnaryOperator<Tensor> layer;
    final boolean inputGrad;
    final Autocast.Mode autocast; // the forward's
    Tensor input; // the checkpoint: the layer's input, detached, held until the backward ran
    Tensor anchor;
    Tensor outputGrad;
    final TensorTensorHook outputHook = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        outputGrad = new Tensor(g);
        dev.weft.util.HookArgument.done(g);
        return new TensorBase();
      }
    };
    final TensorTensorHook inputHook = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase link) {
        dev.weft.util.HandedToAutograd.releaseEarlier();
        Tensor dx;
        try (PointerScope call = new PointerScope(); AutoGradMode on = new AutoGradMode(true); Autocast ac = autocast.enter()) {
          Tensor xr = input.detach().requires_grad_(inputGrad);
          // the recomputed forward's own handles are closed before its backward: what stays is what autograd saved,
          // which it frees node by node as the backward passes (held to this scope's end, every op's output stayed)
          Tensor yr = dev.weft.util.CallScope.run(() -> layer.apply(xr));
          yr.backward(outputGrad, new BoolOptional(), false, new TensorArrayRefOptional());
          // grad() is a reference into xr, freed with it as this scope closes: an owning copy of the handle
          dx = outlive(inputGrad ? new Tensor(xr.grad()) : torch.zeros_like(new Tensor(link)));
          outputGrad.close();
        }
        dev.weft.util.HookArgument.done(link);
        outputGrad = null;
        input.deallocate(); // the checkpoint is used: freed as the backward passes, not when the next step begins
        input = null;
        pending.remove(Pass.this);
        done.add(Pass.this);
        return dev.weft.util.HandedToAutograd.hand(dx);
      }
    };
    private Pointer[] retained = new Pointer[0];

    Pass(UnaryOperator<Tensor> layer, Tensor x, Autocast.Mode autocast) {
      this.layer = layer;
      this.autocast = autocast;
      this.inputGrad = x.requires_grad();
      this.input = outlive(x.detach());
    }

    void hold() {
      retained = dev.weft.util.Retained.hold(outputHook, inputHook);
    }

    void release() {
      retained = dev.weft.util.Retained.release(retained);
      if (input != null) input.releaseReference();
      if (anchor != null) anchor.releaseReference();
      input = anchor = null;
    }
  }
}
