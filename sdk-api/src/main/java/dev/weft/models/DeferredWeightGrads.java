package dev.weft.models;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.pytorch.GradMode;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorOptional;
import org.bytedeco.pytorch.TensorTensorHook;
import org.bytedeco.pytorch.global.torch;

/**
 * Linear layers' weight gradients held back from the backward pass and computed later, as a
 * zero-bubble pipeline's W action needs. While a recording is open on this thread, {@link #linear}
 * multiplies by the detached weight and bias, so autograd computes only the input's gradient (the
 * weight's part of the node is never run), and a hook on the output keeps dY beside the saved input X;
 * {@link #gradients} then gives dW = dYᵀ·X and db = ΣdY. Outside a recording it is a plain linear.
 * The recording owns the tensors it keeps (references taken, released by {@link #close}).
 */
public final class DeferredWeightGrads implements AutoCloseable {
  private static final ThreadLocal<DeferredWeightGrads> RECORDING = new ThreadLocal<>();

  /** A parameter and its gradient. */
  public record Grad(Tensor param, Tensor grad) {}

  /** One deferred linear call: the parameters, its input, and the output gradient once backward has run. */
  private static final class Capture {
    final Tensor weight, bias, input;
    final List<Pointer> retained = new ArrayList<>();
    Tensor outputGrad;
    final TensorTensorHook hook = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        if (outputGrad == null) outputGrad = own(new Tensor(g)); // outlives the backward's scope, until W
        dev.weft.util.HookArgument.done(g);
        return new TensorBase(); // undefined: the gradient passes on unchanged
      }
    };

    Capture(Tensor weight, Tensor bias, Tensor input) {
      this.weight = own(weight);
      this.bias = bias == null ? null : own(bias);
      this.input = own(input);
      own(hook); // libtorch holds the callback weakly, and the forward's scope would free it
    }

    /** A PointerScope that owns {@code p} would free it when it closes: take a reference until {@link #release}. */
    <P extends Pointer> P own(P p) {
      if (p.referenceCount() > 0) {
        p.retainReference();
        retained.add(p);
      }
      return p;
    }

    void release() {
      for (Pointer p : retained) p.releaseReference();
      retained.clear();
      outputGrad = null;
    }
  }

  private final List<Capture> captures = new ArrayList<>();

  private DeferredWeightGrads() {}

  /** Starts recording this thread's linear calls; {@link #stop} ends it (before the backward). */
  public static DeferredWeightGrads record() {
    if (RECORDING.get() != null) throw new IllegalStateException("a weight-gradient recording is already open on this thread");
    DeferredWeightGrads r = new DeferredWeightGrads();
    RECORDING.set(r);
    return r;
  }

  /** Ends the recording on this thread; what it captured stays for {@link #gradients}. */
  public DeferredWeightGrads stop() {
    if (RECORDING.get() == this) RECORDING.remove();
    return this;
  }

  /** Whether a recording is open on this thread: layers with their own backward for W should take {@link #linear}. */
  public static boolean recording() { return RECORDING.get() != null; }

  /**
   * x·Wᵀ + b; inside a recording, with W's (and b's) gradient deferred. A weight that trains nothing
   * (frozen), an input that needs no gradient (the data) or a no-grad region take the plain path.
   */
  public static Tensor linear(Tensor x, Tensor w, Tensor b) {
    DeferredWeightGrads r = RECORDING.get();
    if (r == null || !GradMode.is_enabled() || !w.requires_grad() || !x.requires_grad()) {
      return torch.linear(x, w, b == null ? new TensorOptional() : new TensorOptional(b));
    }
    Tensor trainedBias = b != null && b.requires_grad() ? b : null;
    Tensor y = torch.linear(x, w.detach(), b == null ? new TensorOptional() : new TensorOptional(trainedBias == null ? b : b.detach()));
    Capture c = new Capture(w, trainedBias, x.detach());
    y.register_hook(c.hook);
    r.captures.add(c);
    return y;
  }

  /** Bytes kept for the deferred gradients: the inputs and, once backward ran, the output gradients. */
  public long bytes() {
    long n = 0;
    for (Capture c : captures) n += c.input.nbytes() + (c.outputGrad == null ? 0 : c.outputGrad.nbytes());
    return n;
  }

  /**
   * Every deferred parameter's gradient for this recording and the gradients {@code others}, summed
   * where a parameter appears more than once, in its own dtype. A layer whose output the backward did
   * not reach contributes nothing.
   */
  public List<Grad> gradients(List<Grad> others) {
    Map<Long, Grad> byParam = new LinkedHashMap<>();
    for (Grad g : others) add(byParam, g.param(), g.grad());
    try (NoGradGuard ng = new NoGradGuard()) {
      for (Capture c : captures) {
        if (c.outputGrad == null || !c.outputGrad.defined()) continue;
        long out = c.outputGrad.size(-1), in = c.input.size(-1);
        Tensor dy = c.outputGrad.reshape(-1, out);
        Tensor dw = dy.t().mm(c.input.reshape(-1, in).to(dy.scalar_type()));
        add(byParam, c.weight, dw);
        if (c.bias != null) add(byParam, c.bias, dy.sum(new long[] {0}, false, new org.bytedeco.pytorch.ScalarTypeOptional()));
      }
    }
    return new ArrayList<>(byParam.values());
  }

  private static void add(Map<Long, Grad> byParam, Tensor param, Tensor g) {
    Tensor typed = g.to(param.scalar_type());
    byParam.merge(param.unsafeGetTensorImpl().address(), new Grad(param, typed), (a, b) -> new Grad(a.param(), a.grad().add(b.grad())));
  }

  /** Releases every kept tensor; the gradients must have been taken. */
  @Override
  public void close() {
    stop();
    for (Capture c : captures) c.release();
    captures.clear();
  }
}
