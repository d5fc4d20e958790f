package dev.weft.models.moe;

import org.bytedeco.pytorch.Tensor;

/**
 * How the router losses of a model split over pipeline stages meet (set by the framework, which owns the
 * transfers): transformers' auxiliary loss pools counts and probabilities over every MoE layer, so it is not a sum
 * of per-stage losses. Each earlier stage hands its statistics of a micro-batch on with its output and receives
 * their gradient in its backward; the last stage pools them with its own before the loss.
 */
public interface StageRouterLink {
  /** An earlier stage, training: this micro-batch's statistics leave; returns the output to hand on (same values). */
  Tensor handOn(Tensor output, RouterLosses stats);

  /** The last stage, training: adds the earlier stages' statistics of this micro-batch to {@code stats}. */
  void gather(RouterLosses stats);
}
