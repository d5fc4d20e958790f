package dev.weft.train;

import dev.weft.data.PackedDocuments;
import dev.weft.models.LanguageModel;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * The DPO loss of a micro-batch of preference pairs (Rafailov et al., 2023). Rows come in pairs: row 2i is pair i's
 * chosen answer, row 2i + 1 its rejected one. Each answer's log-probability is the sum of log π over its target
 * tokens (its answer's tokens; prompt and padding are {@link dev.weft.data.Batches#IGNORE}). With the implicit
 * rewards r = β · (log π − log π_ref), a pair's loss is −log σ(r_chosen − r_rejected).
 *
 * @param lossSum the pairs' losses summed (what the training loop divides once by the global count of pairs)
 * @param chosenRewards r_chosen of each pair [P], detached
 * @param rejectedRewards r_rejected of each pair [P], detached
 */
record DpoLoss(Tensor lossSum, Tensor chosenRewards, Tensor rejectedRewards) {
  /**
   * Summed log-probabilities of each row's targets [B]: −(the model's summed cross-entropy), one row at a time, so any
   * {@link LanguageModel} (tensor-parallel heads included) gives them through its own loss.
   */
  static Tensor sequenceLogProbs(LanguageModel model, Tensor tokens, Tensor targets) { return sequenceLogProbs(model, tokens, targets, null); }

  /** As above with each row's document positions ({@code documents}: a cp rank's tokens carry their global places; may be null). */
  static Tensor sequenceLogProbs(LanguageModel model, Tensor tokens, Tensor targets, PackedDocuments documents) {
    TensorVector rows = new TensorVector();
    for (long b = 0; b < tokens.size(0); b++) {
      Tensor t = tokens.narrow(0, b, 1), y = targets.narrow(0, b, 1);
      Tensor sum = documents == null ? model.lossSum(t, y) : model.lossSum(t, y, documents.rows(b, 1));
      rows.push_back(sum.neg().reshape(1));
    }
    return torch.cat(rows);
  }

  /** The loss of the pairs from the policy's and the reference's per-row log-probabilities ([2P] each). */
  static DpoLoss of(Tensor policy, Tensor reference, double beta) {
    Tensor ratios = policy.sub(reference.detach()).mul(new Scalar(beta)).view(-1, 2); // [P, (chosen, rejected)]
    Tensor chosen = ratios.select(1, 0), rejected = ratios.select(1, 1);
    Tensor loss = torch.log_sigmoid(chosen.sub(rejected)).neg().sum();
    return new DpoLoss(loss, chosen.detach(), rejected.detach());
  }

  /** How many pairs the batch holds. */
  long pairs() { return chosenRewards.size(0); }
}
