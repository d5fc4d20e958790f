package dev.weft.checkpoint;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;

/**
 * The entries this rank writes, as contiguous host tensors. With {@code copy} every tensor is copied
 * into a {@link StagingBuffers} buffer (what async save needs: training changes the originals at
 * once); without it, CPU tensors that are already contiguous are written from where they are, and
 * only the others (device or strided tensors) go through a staging buffer.
 */
record Snapshot(List<Item> items) {
  record Item(String name, DType dtype, TensorSlice slice, Tensor host) {}

  static Snapshot take(List<StateEntry> entries, boolean copy, StagingBuffers staging) {
    List<Item> items = new ArrayList<>();
    try (PointerScope scope = new PointerScope(); NoGradGuard ng = new NoGradGuard()) {
      for (StateEntry e : entries) {
        if (!e.write()) continue;
        Tensor d = e.data();
        Tensor host = d;
        if (copy || !d.is_cpu() || !d.is_contiguous()) {
          host = staging.bufferFor(e.name(), d.scalar_type(), d.sizes().vec().get());
          host.copy_(d);
        }
        items.add(new Item(e.name(), e.dtype(), e.slice(), host));
      }
    }
    return new Snapshot(List.copyOf(items));
  }

  long bytes() {
    long n = 0;
    for (Item it : items) n += it.slice().flatLength() * it.dtype().bytes();
    return n;
  }
}
