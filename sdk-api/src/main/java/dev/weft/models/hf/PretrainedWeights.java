package dev.weft.models.hf;

import dev.weft.models.Parameters;
import dev.weft.models.Parameters.Param;
import dev.weft.error.WeftException;
import dev.weft.spec.SpecException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;

/**
 * Fills a freshly built model's parameters from whole tensors, each rank taking exactly its slice,
 * so a pretrained model lands in any layout (tensor-parallel slices, pipeline stages; ZeRO shards
 * the result afterwards like any initial weights). Each whole tensor lives only until its slice is
 * copied, so the load's peak is the model plus the largest tensor.
 */
public final class PretrainedWeights {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PretrainedWeights.class);
  private static final String FIELD = "model.pretrained";
  private PretrainedWeights() {}

  /**
   * The whole tensor for {@code p}. A header whose shape lies (a 1-D tensor where a matrix belongs, a row
   * count too small to slice) makes libtorch fail in the mapping; that is one line naming the tensor.
   */
  private static Tensor read(BiFunction<String, long[], Tensor> whole, Param p, String field) {
    try {
      return whole.apply(p.name(), p.globalShape());
    } catch (WeftException e) {
      throw e;
    } catch (RuntimeException e) {
      String why = String.valueOf(e.getMessage()).lines().findFirst().orElse("").strip();
      throw new SpecException(field, "the tensor(s) for " + p.name() + " (needed as " + Arrays.toString(p.globalShape())
          + ") have a shape that does not fit: " + (why.length() > 160 ? why.substring(0, 160) + "..." : why)
          + "; the weights belong to another model size, or their header is wrong");
    }
  }

  /**
   * The one load seam (training, eval, a LoRA run's frozen base): fills {@code params} from the Hugging Face directory
   * {@code dir}, each tensor named as {@code format} reads it. A parameter left unset by its layers ({@code Init.Draws.unset})
   * is written exactly once here; one of the file's own 16-bit dtype takes the file's memory map and is not written at all.
   */
  public static void loadInto(List<Param> params, HuggingFaceFormat format, Path dir) { loadInto(params, format, dir, (p, v) -> false); }

  /**
   * Takes a parameter's value as read (its slice, in the file's dtype, checked) in place of the copy into it: a
   * compressed LoRA base compresses it from there, so the parameter's fp32 storage is never written (never touched: a
   * fresh page costs a fault) and no fp32 copy of the weight exists. False: the value is copied in as usual.
   */
  public interface Taker {
    boolean take(Param p, Tensor value);
  }

  /** As above, offering each value to {@code taker} first (a compressed LoRA base). */
  public static void loadInto(List<Param> params, HuggingFaceFormat format, Path dir, Taker taker) {
    long t0 = System.nanoTime();
    HfCheckpoint hf = HfCheckpoint.open(dir, FIELD);
    copyInto(params, (name, shape) -> format.read(name, shape, hf), FIELD, taker);
    log.debug("{}: {} tensors loaded from {} in {} ms", FIELD, params.size(), dir, (System.nanoTime() - t0) / 1_000_000);
  }

  /** Copies {@code whole.apply(name, shape)}'s slice into every parameter; {@code field} names the spec field in errors. */
  public static void copyInto(Parameters params, BiFunction<String, long[], Tensor> whole, String field) {
    copyInto(params.list(), whole, field);
  }

  /** As {@link #copyInto(Parameters, BiFunction, String)}, into {@code params} only (a LoRA base: the frozen ones). */
  public static void copyInto(List<Param> params, BiFunction<String, long[], Tensor> whole, String field) {
    copyInto(params, whole, field, (p, v) -> false);
  }

  private static void copyInto(List<Param> params, BiFunction<String, long[], Tensor> whole, String field, Taker taker) {
    try (NoGradGuard ng = new NoGradGuard()) {
      for (Param p : params) {
        // the tensor read (in the file's dtype) and its views are freed as soon as this parameter holds its copy
        try (PointerScope scope = new PointerScope()) {
          copyOne(p, read(whole, p, field), field, taker);
        }
      }
    }
  }

  /** Copies {@code full}'s slice for {@code p} into it, converting to the parameter's dtype (unless {@code taker} takes it). */
  private static void copyOne(Param p, Tensor full, String field, Taker taker) {
    long[] shape = full.sizes().vec().get();
    if (!Arrays.equals(shape, p.globalShape())) {
      throw new SpecException(field, "tensor " + p.name() + " has shape " + Arrays.toString(shape) + " but the model needs "
          + Arrays.toString(p.globalShape()) + "; the weights belong to another model size");
    }
    Tensor mine = p.isSharded() ? full.narrow(p.shardDim(), p.shardIndex() * (shape[p.shardDim()] / p.shardCount()),
        shape[p.shardDim()] / p.shardCount()) : full;
    requireSound(p, full, mine, field);
    if (taker.take(p, mine)) return;
    if (adopts(p.tensor(), mine)) p.tensor().set_(mine);
    else p.tensor().copy_(mine);
  }

  /**
   * Issue 42 item 7: a float weight stored as integers (converted, it would run with nonsense values) or holding NaN or
   * infinity (every loss would be NaN) is refused in one line naming the tensor, at every load (training, eval,
   * generate, a checkpoint rebuilt whole). Each rank checks the slice it takes.
   */
  private static void requireSound(Param p, Tensor full, Tensor mine, String field) {
    if (p.tensor().is_floating_point()) requireFloat(p.name(), full, field);
    requireFinite(p.name(), mine, field);
  }

  /**
   * A float weight read from a file (a merge's base tensor, a parameter's source) refused in one line naming it when stored
   * as integers or holding NaN or infinity: see {@link #requireSound}.
   */
  public static void requireSoundWeight(String name, Tensor t, String field) {
    requireFloat(name, t, field);
    requireFinite(name, t, field);
  }

  private static void requireFloat(String name, Tensor t, String field) {
    if (!t.is_floating_point()) {
      throw new SpecException(field, "tensor " + name + " is stored as " + t.scalar_type() + ", an integer type, where the model"
          + " needs a float weight; the file is damaged or was written wrong: re-export or re-download it");
    }
  }

  private static void requireFinite(String name, Tensor t, String field) {
    // the sum is finite when every element is (weights never sum past fp32's range): one pass without a bool tensor
    // (isfinite(t).all() took as long as a quantisation at 8B); only a non-finite sum is looked at element by element
    if (t.is_floating_point() && !Double.isFinite(t.sum().item_double())
        && !org.bytedeco.pytorch.global.torch.isfinite(t).all().item_bool()) {
      long bad = org.bytedeco.pytorch.global.torch.isfinite(t).logical_not().sum().item_long();
      throw new SpecException(field, "tensor " + name + " holds " + bad + " non-finite value(s) (NaN or infinity); the weights"
          + " are damaged or came from a diverged run: use another copy");
    }
  }

  /**
   * A 16-bit parameter (only a model nothing trains has one: {@code ModelBuilder.frozenWhole}) takes a tensor of its
   * own dtype and layout as it is: it then holds the file's memory map, so loading copies nothing and touches no
   * fresh memory (on a VM, first-touch page faults, not the bytes, were most of a copy's cost); the map is private.
   */
  private static boolean adopts(Tensor param, Tensor t) {
    int type = param.scalar_type().value; // compare values: libtorch hands back distinct enum objects
    return type != org.bytedeco.pytorch.global.torch.ScalarType.Float.value && type == t.scalar_type().value && t.is_contiguous();
  }
}
