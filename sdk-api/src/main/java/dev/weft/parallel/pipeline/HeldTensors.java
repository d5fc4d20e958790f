package dev.weft.parallel.pipeline;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.bytedeco.pytorch.Tensor;

/**
 * Tensors that outlive the action that made them. Each action runs in its own PointerScope so a
 * micro-batch's intermediates are freed as soon as its backward is done (a step-wide scope would
 * keep every micro-batch's activations until the step ends, whatever the schedule). What must live
 * on (inputs, outputs, received buffers, gradients in flight) takes an extra reference here.
 */
final class HeldTensors implements AutoCloseable {
  private final Set<Tensor> held = Collections.newSetFromMap(new IdentityHashMap<>());

  /** {@code t} must own its native tensor (an op's result, not the return of an in-place method). */
  Tensor keep(Tensor t) {
    if (held.add(t)) t.retainReference();
    return t;
  }

  void drop(Tensor t) {
    if (t != null && held.remove(t)) t.releaseReference();
  }

  @Override
  public void close() {
    for (Tensor t : held) t.releaseReference();
    held.clear();
  }
}
