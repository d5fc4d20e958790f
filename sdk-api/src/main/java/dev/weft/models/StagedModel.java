package dev.weft.models;

import dev.weft.data.PackedDocuments;
import org.bytedeco.pytorch.Tensor;

/**
 * A model that can be cut into pipeline stages (and recomputed chunk by chunk). Any model that
 * implements these four methods runs under {@code parallel.pp > 1} and {@code train.recompute}; the
 * framework never needs to know its class.
 */
public interface StagedModel extends LanguageModel {
  /** Which layers each (virtual) stage holds; this rank built only its stage's chunks. */
  LayerPartition partition();

  /**
   * One chunk's forward: token ids [B, T] in on the first virtual stage, hidden states elsewhere;
   * the last virtual stage returns what {@link #headLossSum} takes.
   */
  Tensor forwardChunk(int chunk, Tensor input);

  /** As {@link #forwardChunk(int, Tensor)} for packed samples (every stage is given the micro-batch's documents). */
  default Tensor forwardChunk(int chunk, Tensor input, PackedDocuments documents) {
    if (documents == null) return forwardChunk(chunk, input);
    throw new UnsupportedOperationException(PackedDocuments.refusal(this));
  }

  /** Cross-entropy from the last virtual stage's output, summed over the targets (as {@link #lossSum}). */
  Tensor headLossSum(Tensor hidden, Tensor targets);

  /** Shape of the activation that crosses between stages, for {@code microBatchSize} samples of {@code seqPerRank} tokens. */
  long[] activationShape(int microBatchSize, int seqPerRank);
}
