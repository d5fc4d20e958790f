package dev.weft.models;

import org.bytedeco.pytorch.Tensor;

/** A whole (unsplit) model that gives next-token logits, for evaluation and generation. */
public interface CausalLm extends LanguageModel {
  /**
   * Logits [B, T, vocab] for each position of {@code tokens} [B, T], which continue the tokens
   * already in {@code cache} (null: no cache, positions start at 0); appends to the cache.
   */
  Tensor logits(Tensor tokens, KvCache cache);

  /** An empty cache sized for this model. */
  KvCache newCache();

  int vocabSize();

  /** Token ids that end a generation (the family's end-of-sequence ids); none by default. */
  default long[] stopTokens() { return new long[0]; }
}
