package dev.weft.checkpoint;

import dev.weft.models.Parameters;
import org.bytedeco.pytorch.Tensor;

/**
 * One piece of training state this rank holds: {@code data} holds the elements {@code slice}
 * describes (any dtype of {@link DType}, any device). {@code write = false} when another rank writes
 * an identical copy (data-parallel replicas: only dp rank 0 writes non-sharded entries). Names are
 * paths such as {@code model/blocks.0.attn.q.weight} or {@code optim/exp_avg/blocks.0.attn.q.weight}.
 */
public record StateEntry(String name, Tensor data, TensorSlice slice, boolean write) {
  public StateEntry {
    if (name == null || name.isBlank() || name.startsWith("__")) {
      throw new IllegalArgumentException("state entry name '" + name + "' must be non-empty and not start with '__'");
    }
    if (data.numel() != slice.flatLength()) {
      throw new IllegalArgumentException("state entry " + name + " holds " + data.numel() + " elements but its slice "
          + slice + " names " + slice.flatLength());
    }
  }

  /** A tensor every rank holds whole; only the rank with {@code write} writes it. */
  public static StateEntry whole(String name, Tensor data, boolean write) {
    return new StateEntry(name, data, TensorSlice.whole(data.sizes().vec().get()), write);
  }

  /** A model parameter under {@code prefix} (e.g. "model/"), its tensor-parallel part if it is sharded. */
  public static StateEntry of(String prefix, Parameters.Param p, boolean write) {
    return new StateEntry(prefix + p.name(), p.tensor(), TensorSlice.of(p), write);
  }

  public DType dtype() { return DType.of(data.scalar_type()); }
}
