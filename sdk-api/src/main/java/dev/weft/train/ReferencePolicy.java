package dev.weft.train;

import dev.weft.data.PackedDocuments;
import dev.weft.models.LanguageModel;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.weft.models.lora.LoraLayers;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import dev.weft.spec.SpecOverrides;
import dev.weft.spec.TrainingSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;

/**
 * DPO's reference policy π_ref: the model as training started, never updated. As TRL does it: with LoRA from fresh
 * adapters, the policy itself with its adapters switched off (the frozen base is the reference, no second copy in
 * memory); otherwise — no LoRA, LoRA from a starting adapter ({@code train.lora.adapter}: the SFT adapter DPO goes on
 * from), or an explicit {@code train.dpo.reference} — a frozen copy built beside the policy (TRL's default when no
 * {@code ref_model} is given), so the reference log-probabilities are taken from the same weights at every step and
 * after a resume. Computed without gradients, batch by batch.
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

  /**
   * The spec a frozen reference is built from: the run's own (the base, with its starting adapter), or with
   * {@code train.dpo.reference}: a PEFT adapter directory as the starting adapter, or a model directory as the
   * pretrained model without LoRA.
   */
  static TrainingSpec spec(TrainingSpec spec) {
    String dir = spec.train().dpo().reference();
    if (dir.isBlank()) return spec;
    ObjectNode tree = SpecIO.toTree(spec);
    if (Files.isRegularFile(Path.of(dir, "adapter_config.json"))) {
      if (!spec.train().lora().enabled()) {
        throw new SpecException("train.dpo.reference", dir + " is a PEFT adapter, which needs train.lora like it; or name a model directory");
      }
      SpecOverrides.set(tree, "train.lora.adapter", TextNode.valueOf(dir));
    } else if (Files.isRegularFile(Path.of(dir, "config.json"))) {
      SpecOverrides.set(tree, "model.pretrained", TextNode.valueOf(dir));
      SpecOverrides.set(tree, "train.lora.rank", IntNode.valueOf(0));
      SpecOverrides.set(tree, "train.lora.adapter", TextNode.valueOf(""));
    } else {
      throw new SpecException("train.dpo.reference", dir
          + " holds neither config.json (a model) nor adapter_config.json (a PEFT adapter); name one of those directories");
    }
    return SpecIO.bind(tree);
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
