package dev.weft.models;

import org.bytedeco.pytorch.Tensor;

/** A trainable next-token model: tokens in, mean cross-entropy out. */
public interface LanguageModel {
  /** Mean cross-entropy of predicting {@code targets} [B, T] from {@code tokens} [B, T]. */
  Tensor loss(Tensor tokens, Tensor targets);

  /** This rank's parameters, named and with the slice of the global tensor each holds. */
  Parameters parameters();

  /** Training FLOPs per token of the whole (unsplit) model, for MFU. */
  double trainingFlopsPerToken();

  /** The layers the model was built from (ZeRO-3 binds its parameter gathering to them). */
  Layers layers();
}
