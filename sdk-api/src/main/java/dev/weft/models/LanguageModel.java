package dev.weft.models;

import dev.weft.data.PackedDocuments;
import org.bytedeco.pytorch.Tensor;

/**
 * A trainable next-token model: tokens in, cross-entropy out. A target equal to {@link dev.weft.data.Batches#IGNORE}
 * is no target (a prompt token, padding): it adds nothing to the loss.
 */
public interface LanguageModel {
  /**
   * Cross-entropy of predicting {@code targets} [B, T] from {@code tokens} [B, T], summed over the targets (0 where
   * there is none); the training loop divides it once by the global batch's count of targets.
   */
  Tensor lossSum(Tensor tokens, Tensor targets);

  /**
   * As {@link #lossSum(Tensor, Tensor)} over packed samples: each token sees only its own document's earlier tokens,
   * at its position inside that document ({@code documents} null: one document per sample).
   */
  default Tensor lossSum(Tensor tokens, Tensor targets, PackedDocuments documents) {
    if (documents == null) return lossSum(tokens, targets);
    throw new UnsupportedOperationException(PackedDocuments.refusal(this));
  }

  /** Mean cross-entropy over the targets of {@code targets} (NaN where there is none). */
  default Tensor loss(Tensor tokens, Tensor targets) { return Targets.mean(lossSum(tokens, targets), targets); }

  /** This rank's parameters, named and with the slice of the global tensor each holds. */
  Parameters parameters();

  /** Training FLOPs per token of the whole (unsplit) model, for MFU. */
  double trainingFlopsPerToken();

  /** The layers the model was built from (ZeRO-3 binds its parameter gathering to them). */
  Layers layers();
}
