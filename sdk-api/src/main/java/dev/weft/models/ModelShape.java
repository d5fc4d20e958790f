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
 * @param activationsWhole elements per token one layer saves for backward that every tp rank holds whole
 *     (norm inputs and outputs, residuals)
 * @param activationsSplit elements per token one layer saves for backward inside its split layers (q, k, v,
 *     attention output, MLP intermediates), divided over tp; attention scores aside
 * @param heads attention heads (scores are heads × sequence per token)
 * @param adapterSplitPerLayer LoRA: adapter parameters of one layer that tensor parallelism divides (B beside a column
 *     base, A beside a row base); 0 without LoRA. Adapters are the only trainable parameters; the rest is frozen.
 * @param adapterReplicatedPerLayer LoRA: adapter parameters of one layer every tp rank keeps whole; 0 without LoRA
 * @param backwardPerLayer elements per token a backward holds beside autograd's own gradients for a moment (a
 *     compressed LoRA base's hooks: one projection's dX), beyond what the forward holds; divided over tp
 * @param largestProjection weights of the largest projection a layer multiplies by at once (fused parts together:
 *     q, k and v; gate and up), which a compressed LoRA base makes again per call; divided over tp
 */
public record ModelShape(double vocab, double hidden, int layers, double splitPerLayer, double replicatedPerLayer,
                         double embedding, double positions, double finalNorm, double head, boolean tied,
                         double activationsWhole, double activationsSplit, double heads,
                         double adapterSplitPerLayer, double adapterReplicatedPerLayer, double backwardPerLayer,
                         double largestProjection) {
  /** The largest projection unknown: bounded by the layer's split weights. */
  public ModelShape(double vocab, double hidden, int layers, double splitPerLayer, double replicatedPerLayer,
                    double embedding, double positions, double finalNorm, double head, boolean tied,
                    double activationsWhole, double activationsSplit, double heads,
                    double adapterSplitPerLayer, double adapterReplicatedPerLayer, double backwardPerLayer) {
    this(vocab, hidden, layers, splitPerLayer, replicatedPerLayer, embedding, positions, finalNorm, head, tied,
        activationsWhole, activationsSplit, heads, adapterSplitPerLayer, adapterReplicatedPerLayer, backwardPerLayer,
        splitPerLayer);
  }

  /** Nothing held from the backward past its own use. */
  public ModelShape(double vocab, double hidden, int layers, double splitPerLayer, double replicatedPerLayer,
                    double embedding, double positions, double finalNorm, double head, boolean tied,
                    double activationsWhole, double activationsSplit, double heads,
                    double adapterSplitPerLayer, double adapterReplicatedPerLayer) {
    this(vocab, hidden, layers, splitPerLayer, replicatedPerLayer, embedding, positions, finalNorm, head, tied,
        activationsWhole, activationsSplit, heads, adapterSplitPerLayer, adapterReplicatedPerLayer, 0);
  }

  /** A model trained whole (no LoRA adapters). */
  public ModelShape(double vocab, double hidden, int layers, double splitPerLayer, double replicatedPerLayer,
                    double embedding, double positions, double finalNorm, double head, boolean tied,
                    double activationsWhole, double activationsSplit, double heads) {
    this(vocab, hidden, layers, splitPerLayer, replicatedPerLayer, embedding, positions, finalNorm, head, tied,
        activationsWhole, activationsSplit, heads, 0, 0);
  }

  /** This shape with LoRA adapters of these per-layer sizes beside its frozen weights. */
  public ModelShape withAdapters(double split, double replicated) {
    return new ModelShape(vocab, hidden, layers, splitPerLayer, replicatedPerLayer, embedding, positions, finalNorm, head,
        tied, activationsWhole, activationsSplit, heads, split, replicated, backwardPerLayer, largestProjection);
  }

  /** This shape with what one layer holds per token from its forward until its backward counted anew (elements). */
  public ModelShape withActivations(double whole, double split, double backward) {
    return new ModelShape(vocab, hidden, layers, splitPerLayer, replicatedPerLayer, embedding, positions, finalNorm, head,
        tied, whole, split, heads, adapterSplitPerLayer, adapterReplicatedPerLayer, backward, largestProjection);
  }

  /** This shape with its largest projection known (weights). */
  public ModelShape withLargestProjection(double weights) {
    return new ModelShape(vocab, hidden, layers, splitPerLayer, replicatedPerLayer, embedding, positions, finalNorm, head,
        tied, activationsWhole, activationsSplit, heads, adapterSplitPerLayer, adapterReplicatedPerLayer, backwardPerLayer, weights);
  }

  /** Whether only LoRA adapters train (the counted parameters are then a frozen base). */
  public boolean lora() { return adapterSplitPerLayer + adapterReplicatedPerLayer > 0; }

  /** Parameters of the whole model, counting a tied embedding once. */
  public double parameterCount() {
    return layers * (splitPerLayer + replicatedPerLayer) + embedding + positions + finalNorm + (tied ? 0 : head);
  }
}
