package dev.weft.models;

import static org.bytedeco.pytorch.global.torch.createCPUGenerator;
import static org.bytedeco.pytorch.global.torch.empty;
import static org.bytedeco.pytorch.global.torch.normal;

import org.bytedeco.pytorch.Generator;
import org.bytedeco.pytorch.GeneratorOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * Deterministic initial weights. Each parameter draws from its own generator, seeded from the run
 * seed and the parameter's name, and always draws the full (unsplit) tensor; a tensor-parallel rank
 * then keeps its slice. So every layout starts from the same weights, bit for bit, and no rank
 * touches the process-wide default generator (ranks may be threads).
 */
public final class Init {
  private Init() {}

  public static long seedFor(long runSeed, String name) {
    long h = runSeed * 0x9E3779B97F4A7C15L;
    for (int i = 0; i < name.length(); i++) h = (h ^ name.charAt(i)) * 0x100000001B3L;
    return h ^ (h >>> 31);
  }

  /** Full tensor of {@code shape} drawn from N(0, std²). */
  public static Tensor normalFull(long runSeed, String name, double std, long... shape) {
    Generator g = createCPUGenerator(seedFor(runSeed, name) & Long.MAX_VALUE);
    return normal(0.0, std, shape, new GeneratorOptional(g), new TensorOptions());
  }

  /**
   * Where a layer set's initial weights come from: drawn from the run seed ({@link #seeded}), or left
   * unset ({@link #unset}) when every one of them is overwritten next (a model built from
   * {@code model.pretrained}): allocating without drawing costs nothing per element, where drawing a
   * billion normals costs tens of seconds and a transient fp32 copy of the model. {@code dtype} (null: fp32) is the
   * unset weights' type: a model nothing trains keeps its file's 16-bit weights (see {@code ModelBuilder.frozenWhole}).
   */
  public record Draws(long seed, boolean draw, ScalarType dtype) {
    public static Draws seeded(long seed) { return new Draws(seed, true, null); }
    public static Draws unset(long seed) { return new Draws(seed, false, null); }
    public static Draws unset(long seed, ScalarType dtype) { return new Draws(seed, false, dtype); }

    /** A full tensor of {@code shape}: N(0, std²) from {@code name}'s generator, or uninitialised. */
    public Tensor normal(String name, double std, long... shape) {
      if (draw) return normalFull(seed, name, std, shape);
      return dtype == null ? empty(shape) : dev.weft.util.Tensors.empty(dtype, shape);
    }
  }

  /** The {@code index}-th of {@code count} equal parts of {@code full} along {@code dim}, as a fresh leaf. */
  public static Tensor slice(Tensor full, int dim, int index, int count) {
    if (count == 1) return full.contiguous();
    long n = full.size(dim) / count;
    return full.narrow(dim, index * n, n).contiguous().clone();
  }
}
