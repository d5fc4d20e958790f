package dev.weft.util;

import java.util.function.Supplier;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;

/**
 * One call in its own PointerScope, so the Java handles of its intermediate tensors are dropped when it returns instead
 * of when the step's scope closes after backward. Autograd keeps what backward needs by its own references, so only
 * what it saved outlives the call: context parallelism's attention (the handles kept cp=2's all-gather attention at 4×
 * the attention memory of cp=1, CpActivationMemoryTest), a LoRA sum (the base's and B's outputs), a compressed
 * projection's made weight, a recomputed layer's rerun. The call must not leave anything it made for later use.
 */
public final class CallScope {
  private CallScope() {}

  /** {@code call}'s result, handed to the caller's scope (if any); everything else the call made freed as it returns. */
  public static Tensor run(Supplier<Tensor> call) {
    Tensor out;
    try (PointerScope inner = new PointerScope()) {
      out = Tensors.outlive(call.get());
    }
    return Tensors.adopt(out);
  }
}
