package dev.weft.parallel.context;

import java.util.function.Supplier;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;

/**
 * One attention call in its own PointerScope, so the Java handles of its intermediate tensors (the stacked and
 * gathered K/V, their position-ordered copy, masks, chunk outputs) are dropped when it returns instead of when the
 * step's scope closes after backward. Autograd keeps what backward needs by its own references, so only what it
 * saved outlives the call — measured, the handles kept cp=2's all-gather attention at 4× the attention memory of
 * cp=1 (see CpActivationMemoryTest). Every exchange a method starts is awaited inside the call and its hooks are
 * fields held for the run, so nothing the scope frees is used later.
 */
final class CallScope {
  private CallScope() {}

  static Tensor run(Supplier<Tensor> call) {
    Tensor out;
    try (PointerScope inner = new PointerScope()) {
      out = call.get();
      out.retainReference(); // survives the inner scope's release
    }
    PointerScope outer = PointerScope.getInnerScope();
    if (outer != null) { // hand it to the step's scope, which now holds its only reference
      outer.attach(out);
      out.releaseReference();
    }
    return out;
  }
}
