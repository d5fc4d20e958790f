package dev.weft.models;

import dev.weft.spec.TrainingSpec;

/**
 * Builds a model from a spec on every rank. Registered through {@link java.util.ServiceLoader} by
 * short name, or named by its class in {@code model.factory}. The framework builds the layers for
 * the run's layout and passes them in the {@link ModelContext}; the factory only says what to build.
 */
public interface ModelFactory {
  String name();

  /** Throws {@link dev.weft.spec.SpecException} naming {@code model.config.*} (or the parallel field) that cannot work. */
  void validate(TrainingSpec spec);

  /** Builds this rank's part of the model from {@code context.layers()}. Same spec and seed → same initial weights on every rank. */
  LanguageModel create(TrainingSpec spec, ModelContext context);

  /**
   * Whether the models built implement {@link StagedModel}, so pipeline stages and recomputation can
   * be refused at validation rather than after the ranks start.
   */
  default boolean staged() { return false; }

  /**
   * Sizes every tensor-parallel rank must split evenly (attention heads, MLP width, vocabulary...), by
   * the {@code model.config} field that sets them; checked against {@code parallel.tp} at validation.
   */
  default java.util.Map<String, Integer> splitSizes(TrainingSpec spec) { return java.util.Map.of(); }

  /** The model's shape for the memory planner ({@code weft plan}, the pre-flight check); empty when not described. */
  default java.util.Optional<ModelShape> shape(TrainingSpec spec) { return java.util.Optional.empty(); }
}
