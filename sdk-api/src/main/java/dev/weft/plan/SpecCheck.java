package dev.weft.plan;

import dev.weft.checkpoint.CheckpointStorages;
import dev.weft.data.DataSources;
import dev.weft.models.ModelFactories;
import dev.weft.models.ModelFactory;
import dev.weft.models.hf.HuggingFaceFormat;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.data.TokenSource;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import dev.weft.spec.SpecOverrides;
import dev.weft.spec.SpecValidator;
import dev.weft.spec.TrainingSpec;

/**
 * The whole check of a spec before anything runs, one field error at a time: its own fields
 * ({@link SpecValidator}), then its data sources, the model factory's rules, and what the engine runs.
 * Nothing that passes here should hang or crash natively later because of its shape. It lives above
 * {@code spec} because it asks the data, model and schedule packages, which read specs themselves.
 */
public final class SpecCheck {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SpecCheck.class);

  private SpecCheck() {}

  /**
   * {@code train.epochs > 0}: the steps that many passes over the training samples need, ceil(epochs × samples /
   * globalBatch), written into {@code train.steps} (said in the log); a source without an end is refused.
   */
  static TrainingSpec stepsFromEpochs(TrainingSpec s) {
    int epochs = s.train().epochs();
    if (epochs == 0) return s;
    long samples = TokenSource.of(s.data(), s.train().seed()).distinctSamples();
    if (samples == Long.MAX_VALUE || samples <= 0) {
      throw new SpecException("train.epochs", "data.source " + s.data().source() + " has no fixed number of samples (it does not end);"
          + " set train.steps instead");
    }
    long steps = (epochs * samples + s.train().globalBatch() - 1) / s.train().globalBatch();
    if (steps > Integer.MAX_VALUE) throw new SpecException("train.epochs", epochs + " passes of " + samples + " samples are too many steps");
    if (steps != s.train().steps()) {
      log.info("train.epochs={}: {} samples per epoch, {} per step: {} steps", epochs, samples, s.train().globalBatch(), steps);
    }
    ObjectNode tree = SpecIO.toTree(s);
    SpecOverrides.set(tree, "train.steps", IntNode.valueOf((int) steps));
    return SpecValidator.validate(SpecIO.bind(tree));
  }

  /** Validates the spec on its own (no process count). */
  public static TrainingSpec validate(TrainingSpec s) {
    return beyondFields(SpecValidator.validate(s));
  }

  /** Validates the spec and that {@code nproc} processes make exactly its mesh. */
  public static TrainingSpec validate(TrainingSpec s, int nproc) {
    return beyondFields(SpecValidator.validate(s, nproc));
  }

  private static TrainingSpec beyondFields(TrainingSpec s) {
    if (!s.train().grpoObjective()) DataSources.validate(s.data()); // GRPO's data.source is its prompt file, read at the run
    s = stepsFromEpochs(s);
    ModelFactory f = ModelFactories.validate(s);
    if (s.model().hasPretrained()) HuggingFaceFormat.of(f);
    EngineSupport.refuseUnsupported(s);
    if (s.tracking().tensorboardOn()) CheckpointStorages.requireProvider("tracking.tensorboard", s.tracking().tensorboard().trim());
    return s;
  }
}
