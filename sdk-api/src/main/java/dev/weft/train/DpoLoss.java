package dev.weft.train;

import dev.weft.data.PackedDocuments;
import dev.weft.models.LanguageModel;
import dev.weft.spec.DpoLossKind;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * The DPO loss of a micro-batch of preference pairs (Rafailov et al., 2023). Rows come in pairs: row 2i is pair i's
 * chosen answer, row 2i + 1 its rejected one. Each answer's log-probability is the sum of log π over its target
 * tokens (its answer's tokens; prompt and padding are {@link dev.weft.data.Batches#IGNORE}). With the implicit
 * rewards r = β · (log π − log π_ref), a pair's loss is −log σ(r_chosen − r_rejected) ({@code sigmoid}), or another of
 * TRL's {@link DpoLossKind}s.
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

  /** The sigmoid loss (DPO) of the pairs from the policy's and the reference's per-row log-probabilities ([2P] each). */
  static DpoLoss of(Tensor policy, Tensor reference, double beta) {
    return of(policy, reference, beta, DpoLossKind.SIGMOID, 0, null);
  }

  /**
   * The pairs' loss of {@code kind} ({@link DpoLossKind}: TRL's formulas) with label smoothing {@code eps};
   * {@code targetCounts} [2P], each row's number of targets, averages the log-probabilities for {@code ipo} (TRL
   * does; unused otherwise). The rewards are β · (log π − log π_ref) of the summed log-probabilities in every case.
   */
  static DpoLoss of(Tensor policy, Tensor reference, double beta, DpoLossKind kind, double eps, Tensor targetCounts) {
    Tensor ratios = policy.sub(reference.detach()).mul(new Scalar(beta)).view(-1, 2); // [P, (chosen, rejected)]
    Tensor chosen = ratios.select(1, 0), rejected = ratios.select(1, 1);
    Tensor h = chosen.sub(rejected); // β · logits in TRL's terms
    Tensor loss = switch (kind) {
      case SIGMOID -> torch.log_sigmoid(h).mul(new Scalar(-(1 - eps))).sub(torch.log_sigmoid(h.neg()).mul(new Scalar(eps))).sum();
      case ROBUST -> torch.log_sigmoid(h).mul(new Scalar(-(1 - eps))).add(torch.log_sigmoid(h.neg()).mul(new Scalar(eps)))
          .div(new Scalar(1 - 2 * eps)).sum();
      case HINGE -> torch.relu(h.neg().add(new Scalar(1.0))).sum();
      case IPO -> {
        Tensor mean = policy.sub(reference.detach()).div(targetCounts.clamp_min(new Scalar(1.0)).to(policy.scalar_type())).view(-1, 2);
        Tensor logits = mean.select(1, 0).sub(mean.select(1, 1));
        yield logits.sub(new Scalar(1 / (2 * beta))).pow(new Scalar(2.0)).sum();
      }
    };
    return new DpoLoss(loss, chosen.detach(), rejected.detach());
  }

  /** Each row's number of targets (those not {@link dev.weft.data.Batches#IGNORE}) [B], as doubles. */
  static Tensor targetCounts(Tensor targets) {
    return targets.ne(new Scalar(dev.weft.data.Batches.IGNORE)).sum(new long[] {1}, false, new org.bytedeco.pytorch.ScalarTypeOptional(torch.ScalarType.Double));
  }

  /** How many pairs the batch holds. */
  long pairs() { return chosenRewards.size(0); }
}
