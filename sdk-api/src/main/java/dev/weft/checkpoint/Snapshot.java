package dev.weft.checkpoint;

import dev.weft.util.Tensors;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;

/**
 * The entries this rank writes, as contiguous host tensors. With {@code copy} every tensor is cloned
 * (what async save needs: training may change the originals at once); without it, CPU tensors that
 * are already contiguous are used as they are. Clones are made in a scope of their own and their
 * references retained, so a training step's {@link PointerScope} closing does not free them; {@link #close}
 * releases them.
 */
final class Snapshot implements AutoCloseable {
  record Item(String name, DType dtype, TensorSlice slice, Tensor host) {}

  private final List<Item> items;
  private final List<Tensor> owned;

  private Snapshot(List<Item> items, List<Tensor> owned) {
    this.items = items;
    this.owned = owned;
  }

  static Snapshot take(List<StateEntry> entries, boolean copy) {
    List<Item> items = new ArrayList<>();
    List<Tensor> owned = new ArrayList<>();
    try (PointerScope scope = new PointerScope(); NoGradGuard ng = new NoGradGuard()) {
      for (StateEntry e : entries) {
        if (!e.write()) continue;
        Tensor d = e.data();
        Tensor host = d;
        if (copy || !d.is_cpu() || !d.is_contiguous()) {
          host = Tensors.empty(d.scalar_type(), d.sizes().vec().get());
          host.copy_(d);
          host.retainReference();
          owned.add(host);
        }
        items.add(new Item(e.name(), e.dtype(), e.slice(), host));
      }
    } catch (RuntimeException ex) {
      for (Tensor t : owned) t.releaseReference();
      throw ex;
    }
    return new Snapshot(List.copyOf(items), owned);
  }

  List<Item> items() { return items; }

  long bytes() {
    long n = 0;
    for (Item it : items) n += it.slice().flatLength() * it.dtype().bytes();
    return n;
  }

  @Override
  public void close() {
    for (Tensor t : owned) t.releaseReference();
    owned.clear();
  }
}
