package dev.weft.plan;

import dev.weft.checkpoint.CheckpointStorages;
import dev.weft.data.DataSources;
import dev.weft.models.ModelFactories;
import dev.weft.models.ModelFactory;
import dev.weft.models.hf.HuggingFaceFormat;
import dev.weft.spec.SpecValidator;
import dev.weft.spec.TrainingSpec;

/**
 * The whole check of a spec before anything runs, one field error at a time: its own fields
 * ({@link SpecValidator}), then its data sources, the model factory's rules, and what the engine runs.
 * Nothing that passes here should hang or crash natively later because of its shape. It lives above
 * {@code spec} because it asks the data, model and schedule packages, which read specs themselves.
 */
public final class SpecCheck {
  private SpecCheck() {}

  /** Validates the spec on its own (no process count). */
  public static TrainingSpec validate(TrainingSpec s) {
    return beyondFields(SpecValidator.validate(s));
  }

  /** Validates the spec and that {@code nproc} processes make exactly its mesh. */
  public static TrainingSpec validate(TrainingSpec s, int nproc) {
    return beyondFields(SpecValidator.validate(s, nproc));
  }

  private static TrainingSpec beyondFields(TrainingSpec s) {
    DataSources.validate(s.data());
    ModelFactory f = ModelFactories.validate(s);
    if (s.model().hasPretrained()) HuggingFaceFormat.of(f);
    EngineSupport.refuseUnsupported(s);
    if (s.tracking().tensorboardOn()) CheckpointStorages.requireProvider("tracking.tensorboard", s.tracking().tensorboard().trim());
    return s;
  }
}
