package dev.weft.models;

import org.bytedeco.pytorch.Tensor;

/**
 * Routed experts as one layer (SwiGLU experts, no biases): the model's router chooses, for each
 * token, k experts and their weights; the layer returns each token's weighted sum of its experts'
 * outputs. Dropless: every token is processed by each of its k experts. The plain version
 * ({@link LocalExperts}) runs every expert on this rank; an expert-parallel layout supplies one that
 * dispatches the tokens to the ranks holding their experts and combines the results.
 */
public interface Experts {
  /** x [N, H], index [N, k] (long), weight [N, k] → [N, H]. */
  Tensor forward(Tensor x, Tensor index, Tensor weight);

  /** Token–expert assignments each expert received in the last forward (summing to N·k over all experts). */
  long[] lastCounts();

  /** Parameter name of {@code part} (gate, up or down projection) of expert {@code e} under {@code prefix}. */
  static String name(String prefix, int e, String part) { return prefix + e + "." + part; }
}
