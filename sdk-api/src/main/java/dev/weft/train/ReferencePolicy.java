package dev.weft.train;

import dev.weft.data.PackedDocuments;
import dev.weft.models.LanguageModel;
import dev.weft.models.lora.LoraLayers;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;

/**
 * DPO's reference policy π_ref: the model as training started, never updated. As TRL does it: with LoRA, the policy
 * itself with its adapters switched off (the frozen base is the reference, no second copy in memory); without LoRA, a
 * frozen copy of the starting model built beside the policy (TRL's default when no {@code ref_model} is given), so the
 * reference log-probabilities are taken from the same weights at every step and after a resume. Computed without
 * gradients, batch by batch.
 */
interface ReferencePolicy {
  /** Summed log-probabilities of each row's targets [B] under π_ref, without gradients ({@code documents} may be null). */
  Tensor logProbs(Tensor tokens, Tensor targets, PackedDocuments documents);

  default Tensor logProbs(Tensor tokens, Tensor targets) { return logProbs(tokens, targets, null); }

  /** The policy's own base with its LoRA adapters off. */
  static ReferencePolicy adaptersOff(LanguageModel policy, LoraLayers lora) {
    return (tokens, targets, documents) -> {
      try (NoGradGuard ng = new NoGradGuard(); LoraLayers.Off off = lora.adaptersOff()) {
        return DpoLoss.sequenceLogProbs(policy, tokens, targets, documents);
      }
    };
  }

  /** A frozen copy of the starting model. */
  static ReferencePolicy frozen(LanguageModel copy) {
    return (tokens, targets, documents) -> {
      try (NoGradGuard ng = new NoGradGuard()) {
        return DpoLoss.sequenceLogProbs(copy, tokens, targets, documents);
      }
    };
  }
}
