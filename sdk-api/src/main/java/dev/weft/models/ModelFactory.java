package dev.weft.models;

import dev.weft.spec.TrainingSpec;

/**
 * Builds a model from a spec on every rank. Registered through {@link java.util.ServiceLoader} by
 * short name, or named by its class in {@code model.factory}.
 */
public interface ModelFactory {
  String name();

  /** Throws {@link dev.weft.spec.SpecException} naming {@code model.config.*} (or the parallel field) that cannot work. */
  void validate(TrainingSpec spec);

  /** Builds this rank's part of the model. Same spec and seed → same initial weights on every rank. */
  LanguageModel create(TrainingSpec spec, ModelContext context);
}
