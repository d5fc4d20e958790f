package dev.weft.models;

import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * Which keys each query may see. The queries are the last {@code T} of the {@code S} key positions
 * (S = T in training; with a KV cache S counts the cached tokens too). Query at position i sees key j
 * when j ≤ i (causal), i − j < {@code window} (a sliding window, as Mistral's; 0 = unbounded) and,
 * when {@code documents} [B, S] is given (packed sequences), both belong to the same document.
 */
public record AttentionMask(int window, Tensor documents) {
  public static final AttentionMask CAUSAL = new AttentionMask(0, null);

  public AttentionMask {
    if (window < 0) throw new IllegalArgumentException("window " + window + " must be 0 (none) or positive");
  }

  /** Causal, with a sliding window of {@code window} keys (null or 0: none). */
  public static AttentionMask causal(Integer window) {
    return window == null || window == 0 ? CAUSAL : new AttentionMask(window, null);
  }

  /** The same mask restricted to documents [B, S] (ids per token; tokens attend within their document). */
  public AttentionMask withDocuments(Tensor documentIds) { return new AttentionMask(window, documentIds); }

  /** Whether {@code T} queries over {@code S} keys need no explicit mask: plain causal (S = T) or everything visible. */
  public boolean isPlainCausal(long queries, long keys) {
    return documents == null && queries == keys && (window == 0 || window >= keys);
  }

  /** Whether every key is visible to every query (one query after the cache, no window in reach). */
  public boolean isUnmasked(long queries, long keys) {
    return documents == null && queries == 1 && (window == 0 || window >= keys);
  }

  /** The boolean mask (true = visible) [T, S], or [B, 1, T, S] with documents, on {@code device}'s device. */
  public Tensor visible(long queries, long keys, Tensor like) {
    TensorOptions longs = new TensorOptions(ScalarType.Long).device(new org.bytedeco.pytorch.DeviceOptional(like.device()));
    Tensor i = torch.arange(new Scalar(keys - queries), new Scalar(keys), longs).view(queries, 1);
    Tensor j = torch.arange(new Scalar(0), new Scalar(keys), longs).view(1, keys);
    Tensor m = j.le(i);
    if (window > 0) m = m.logical_and(j.gt(i.sub(new Scalar(window))));
    if (documents == null) return m;
    long b = documents.size(0);
    Tensor d = documents.to(like.device(), ScalarType.Long);
    Tensor same = d.narrow(1, keys - queries, queries).view(b, 1, queries, 1).eq(d.view(b, 1, 1, keys));
    return same.logical_and(m.view(1, 1, queries, keys));
  }
}
