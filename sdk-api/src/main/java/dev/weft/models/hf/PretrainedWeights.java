package dev.weft.models.hf;

import dev.weft.models.Parameters;
import dev.weft.models.Parameters.Param;
import dev.weft.spec.SpecException;
import java.util.Arrays;
import java.util.function.BiFunction;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;

/**
 * Fills a freshly built model's parameters from whole tensors, each rank taking exactly its slice,
 * so a pretrained model lands in any layout (tensor-parallel slices, pipeline stages; ZeRO shards
 * the result afterwards like any initial weights).
 */
public final class PretrainedWeights {
  private PretrainedWeights() {}

  /** Copies {@code whole.apply(name, shape)}'s slice into every parameter; {@code field} names the spec field in errors. */
  public static void copyInto(Parameters params, BiFunction<String, long[], Tensor> whole, String field) {
    try (NoGradGuard ng = new NoGradGuard()) {
      for (Param p : params.list()) {
        Tensor full = whole.apply(p.name(), p.globalShape());
        long[] shape = full.sizes().vec().get();
        if (!Arrays.equals(shape, p.globalShape())) {
          throw new SpecException(field, "tensor " + p.name() + " has shape " + Arrays.toString(shape) + " but the model needs "
              + Arrays.toString(p.globalShape()) + "; the weights belong to another model size");
        }
        Tensor mine = p.isSharded() ? full.narrow(p.shardDim(), p.shardIndex() * (shape[p.shardDim()] / p.shardCount()),
            shape[p.shardDim()] / p.shardCount()) : full;
        p.tensor().copy_(mine);
      }
    }
  }
}
