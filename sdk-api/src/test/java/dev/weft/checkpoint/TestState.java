package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.util.Tensors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/** A small model-and-optimizer state with known values, cut into any layout. */
final class TestState {
  /** Global tensors by name: model weights, a bias, optimizer moments, a scalar step counter. */
  static Map<String, long[]> shapes() {
    Map<String, long[]> m = new LinkedHashMap<>();
    m.put("model/blocks.0.attn.q.weight", new long[] {8, 6});
    m.put("model/blocks.0.attn.q.bias", new long[] {8});
    m.put("model/blocks.0.mlp.down.weight", new long[] {6, 12});
    m.put("optim/exp_avg/blocks.0.attn.q.weight", new long[] {8, 6});
    m.put("optim/exp_avg_sq/blocks.0.attn.q.weight", new long[] {8, 6});
    m.put("optim/step", new long[] {});
    return m;
  }

  /** The global value of a tensor: distinct for every element of every tensor, shifted by {@code salt}. */
  static Tensor global(String name, long[] shape, double salt) {
    long n = TensorSlice.product(shape);
    Tensor t = torch.arange(new Scalar(n)).to(ScalarType.Float).mul(new Scalar(0.25))
        .add(new Scalar((Math.floorMod(name.hashCode(), 1000)) + salt));
    return t.view(shape);
  }

  /** The elements of {@code global} a slice holds, as a fresh tensor of {@code dtype}, in the slice's local shape. */
  static Tensor cut(Tensor global, TensorSlice s, ScalarType dtype) {
    Tensor t = global;
    long[] off = s.offset(), shape = s.shape();
    for (int d = 0; d < off.length; d++) t = t.narrow(d, off[d], shape[d]);
    Tensor flat = t.contiguous().reshape(-1).narrow(0, s.flatStart(), s.flatLength());
    return flat.reshape(s.localShape()).to(dtype).clone();
  }

  /** One rank's entries: {@code layout} gives each tensor's slice on this rank (and whether it writes). */
  static List<StateEntry> entries(double salt, Function<String, TensorSlice> slice, boolean write, ScalarType dtype) {
    List<StateEntry> out = new ArrayList<>();
    shapes().forEach((name, shape) -> {
      TensorSlice s = slice.apply(name);
      out.add(new StateEntry(name, cut(global(name, shape, salt), s, dtype), s, write));
    });
    return out;
  }

  /** Empty (zero) tensors for the same slices, to load into. */
  static List<StateEntry> blanks(Function<String, TensorSlice> slice, ScalarType dtype) {
    List<StateEntry> out = new ArrayList<>();
    shapes().forEach((name, shape) -> {
      TensorSlice s = slice.apply(name);
      out.add(new StateEntry(name, Tensors.zeros(dtype, s.localShape()), s, true));
    });
    return out;
  }

  /** Asserts each loaded entry holds exactly (or, for 16-bit types, to rounding) the global values of its slice. */
  static void assertHolds(List<StateEntry> loaded, double salt) {
    Map<String, long[]> shapes = shapes();
    for (StateEntry e : loaded) {
      if (e.slice().flatLength() == 0) continue;
      Tensor want = cut(global(e.name(), shapes.get(e.name()), salt), e.slice(), ScalarType.Float);
      float[] got = Tensors.toFloats(e.data()), exp = Tensors.toFloats(want.to(e.data().scalar_type()));
      assertThat(got).as("%s %s", e.name(), e.slice()).containsExactly(exp);
    }
  }

  /** A tensor-parallel-like layout: weights split along dim 0 (even tp rank) or dim 1, biases along dim 0, scalars whole. */
  static Function<String, TensorSlice> tpLayout(int tpRank, int tp) {
    return name -> {
      long[] shape = shapes().get(name);
      if (shape.length == 0) return TensorSlice.whole(shape);
      int dim = name.contains("down") ? 1 : 0;
      return TensorSlice.part(shape, dim, tpRank, tp);
    };
  }

  /** A ZeRO-like layout: each tensor's flattening cut into {@code world} parts. */
  static Function<String, TensorSlice> zeroLayout(int rank, int world) {
    return name -> TensorSlice.whole(shapes().get(name)).flatPart(rank, world);
  }

  static Function<String, TensorSlice> wholeLayout() { return name -> TensorSlice.whole(shapes().get(name)); }

  /**
   * Ranks 0..world-1 as threads of this JVM sharing an in-process commit store, each saving
   * {@code entries.apply(rank)} as {@code meta}; rethrows the first rank's failure.
   */
  static void saveAsThreads(java.nio.file.Path root, int world, CheckpointMeta meta, java.util.function.IntFunction<List<StateEntry>> entries) {
    CommitStore store = CommitStore.inProcess();
    Thread[] ts = new Thread[world];
    RuntimeException[] err = new RuntimeException[world];
    for (int r = 0; r < world; r++) {
      int rank = r;
      ts[r] = new Thread(() -> {
        try (Checkpointer c = Checkpointer.create(root, rank, world, store, new Checkpointer.Options(0, false, java.time.Duration.ofSeconds(60)))) {
          c.save(meta, entries.apply(rank));
        } catch (RuntimeException e) {
          err[rank] = e;
        }
      }, "test-rank-" + r);
      ts[r].start();
    }
    for (Thread t : ts) {
      try {
        t.join(120_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    for (RuntimeException e : err) if (e != null) throw e;
  }

  private TestState() {}
}
