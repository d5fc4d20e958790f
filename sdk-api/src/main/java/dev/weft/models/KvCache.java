package dev.weft.models;

import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * Keys and values of the tokens a model has already seen, per attention layer, so generation
 * computes each new token against them instead of running the whole prefix again.
 */
public final class KvCache {
  private final Tensor[] keys;
  private final Tensor[] values;
  private long length;

  public KvCache(int layers) {
    keys = new Tensor[layers];
    values = new Tensor[layers];
  }

  /** Tokens cached so far (the position of the next token). */
  public long length() { return length; }

  /**
   * Appends layer {@code layer}'s new keys and values [B, heads, T, d] along the sequence and returns
   * all of them {@code [keys, values]}.
   */
  public Tensor[] append(int layer, Tensor k, Tensor v) {
    keys[layer] = keys[layer] == null ? k : torch.cat(new TensorVector(keys[layer], k), 2);
    values[layer] = values[layer] == null ? v : torch.cat(new TensorVector(values[layer], v), 2);
    return new Tensor[] {keys[layer], values[layer]};
  }

  /**
   * Whether attention over this cache plus {@code queryLength} new tokens is causal in the plain
   * sense: the prompt (empty cache) is; one new token attends to everything before it, unmasked.
   */
  public boolean causal(long queryLength) {
    if (length == 0) return true;
    if (queryLength != 1) throw new IllegalArgumentException("after the prompt, feed the cache one token at a time");
    return false;
  }

  /** Called once per forward, after every layer appended {@code tokens} positions. */
  public void advance(long tokens) { length += tokens; }
}
