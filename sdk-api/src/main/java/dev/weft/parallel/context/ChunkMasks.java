package dev.weft.parallel.context;

import dev.weft.models.AttentionMask;
import java.util.HashMap;
import java.util.Map;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;

/**
 * The additive masks of a rank's query chunks without documents, one per chunk shape, made once and held for the
 * run. A zigzag chunk's queries are the last of its keys (lower-right causal), which the fused kernel takes only
 * as an explicit mask; libtorch turns a boolean one into an additive one of the query's type on every call and
 * saves that copy for backward, once per layer — a [c, (j+1)·c] float per layer and chunk, growing with s².
 * Handing it the same additive tensor each time, autograd saves one shared tensor for all layers instead.
 */
final class ChunkMasks {
  private final Map<String, Tensor> held = new HashMap<>();

  /** The additive mask (0 visible, −∞ hidden) of {@code queries} over {@code keys} under {@code mask} (no documents). */
  Tensor additive(AttentionMask mask, long queries, long keys, Tensor like) {
    String key = queries + ":" + keys + ":" + mask.window() + ":" + like.scalar_type() + ":" + like.device().str().getString();
    Tensor m = held.get(key);
    if (m == null) {
      Tensor visible = mask.visible(queries, keys, like);
      m = visible.to(like.scalar_type()).zero_().masked_fill(visible.logical_not(), new Scalar(Double.NEGATIVE_INFINITY));
      m.retainReference(); // outlives the step's PointerScope: held for the run
      held.put(key, m);
    }
    return m;
  }
}
