package dev.weft.checkpoint;

import dev.weft.util.Tensors;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * Host buffers that snapshots are copied into, one per entry name, kept from save to save: after the
 * first save the copy touches memory that is already mapped, so the training stall is a plain
 * memcpy. They hold one host copy of this rank's saved state until {@link #close}. Buffers are made
 * in a scope of their own and their references retained, so a training step's {@link PointerScope}
 * does not free them.
 */
final class StagingBuffers implements AutoCloseable {
  private record Buffer(ScalarType type, long[] sizes, Tensor tensor) {}

  private final Map<String, Buffer> byName = new HashMap<>();

  /** A contiguous host tensor of {@code type} and {@code sizes} for entry {@code name}; valid until the next call for that name. */
  synchronized Tensor bufferFor(String name, ScalarType type, long[] sizes) {
    Buffer b = byName.get(name);
    if (b != null && b.type().value == type.value && Arrays.equals(b.sizes(), sizes)) return b.tensor();
    if (b != null) b.tensor().releaseReference();
    Tensor t;
    try (PointerScope scope = new PointerScope()) {
      t = Tensors.empty(type, sizes);
      t.retainReference();
    }
    byName.put(name, new Buffer(type, sizes.clone(), t));
    return t;
  }

  @Override
  public synchronized void close() {
    for (Buffer b : byName.values()) b.tensor().releaseReference();
    byName.clear();
  }
}
