package dev.weft.models;

/**
 * What the memory planner needs to know of a transformer-shaped model, in parameter and element counts
 * (doubles, so absurd configs give absurd numbers instead of overflow). A factory describes its model
 * through {@link ModelFactory#shape}; the planner splits it over the layout.
 *
 * @param splitPerLayer parameters of one layer that tensor parallelism divides (matmul weights and their
 *     column biases)
 * @param replicatedPerLayer parameters of one layer every tensor-parallel rank keeps whole (norms, row biases)
 * @param embedding token embedding parameters (vocabulary split over tp), first stage
 * @param positions learned position embedding parameters (replicated), first stage; 0 with rotary positions
 * @param finalNorm final norm parameters (replicated), last stage
 * @param head output head parameters (vocabulary split over tp), last stage; with a tied head this is the
 *     embedding again, held by the last stage only when it is not also the first
 * @param tied whether the head is the token embedding
 * @param activationsPerLayer elements per token one layer saves for backward, attention scores aside
 * @param heads attention heads (scores are heads × sequence per token)
 */
public record ModelShape(double vocab, double hidden, int layers, double splitPerLayer, double replicatedPerLayer,
                         double embedding, double positions, double finalNorm, double head, boolean tied,
                         double activationsPerLayer, double heads) {
  /** Parameters of the whole model, counting a tied embedding once. */
  public double parameterCount() {
    return layers * (splitPerLayer + replicatedPerLayer) + embedding + positions + finalNorm + (tied ? 0 : head);
  }

  /**
   * A pre-norm decoder (Llama, Qwen, Mistral): attention with {@code kvHeads} key/value heads of {@code headDim},
   * optional q/k/v biases and per-head q/k norms, a SwiGLU MLP of {@code intermediate}, RMSNorms, rotary positions.
   * Activations per token and layer: the norms' inputs and outputs, q, k, v (and their rotated copies), the
   * attention output, and the MLP's gate, up, activation and product (Korthikanti et al.'s count for this block).
   */
  public static ModelShape decoder(double vocab, double hidden, double intermediate, int layers, double heads, double kvHeads,
                                   double headDim, boolean qkvBias, boolean qkNorm, boolean tied) {
    double h = hidden, q = heads * headDim, kv = kvHeads * headDim, f = intermediate;
    double split = h * q + 2 * h * kv + q * h + 3 * h * f + (qkvBias ? q + 2 * kv : 0);
    double replicated = 2 * h + (qkNorm ? 2 * headDim : 0);
    double acts = 4 * h + 2 * q + 2 * 2 * kv + q + 4 * f;
    return new ModelShape(vocab, h, layers, split, replicated, vocab * h, 0, h, vocab * h, tied, acts, heads);
  }
}
