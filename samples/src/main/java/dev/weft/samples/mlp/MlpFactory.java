package dev.weft.samples.mlp;

import dev.weft.models.LanguageModel;
import dev.weft.models.ModelConfigs;
import dev.weft.models.ModelContext;
import dev.weft.models.ModelFactory;
import dev.weft.spec.TrainingSpec;
import java.util.Map;

/**
 * {@code model.factory: dev.weft.samples.mlp.MlpFactory}. Everything a factory does: read its
 * config, state its rules and the sizes tensor parallelism splits, and build the model from the
 * context. No parallel class, no ZeRO: the framework supplies the layers.
 */
public final class MlpFactory implements ModelFactory {
  @Override public String name() { return "mlp"; }
  @Override public boolean staged() { return true; }

  static MlpConfig config(TrainingSpec spec) {
    return spec.model().config().isEmpty() ? MlpConfig.tiny() : ModelConfigs.bind(spec.model().config(), MlpConfig.class);
  }

  @Override
  public void validate(TrainingSpec spec) {
    MlpConfig c = config(spec);
    if (c.vocab() < 1 || c.hidden() < 1 || c.layers() < 1 || c.expansion() < 1) {
      throw new dev.weft.spec.SpecException("model.config", c + ": every size must be at least 1");
    }
    ModelContext.partitionFor(spec.parallel(), c.layers());
  }

  @Override
  public Map<String, Integer> splitSizes(TrainingSpec spec) {
    MlpConfig c = config(spec);
    return Map.of("vocab", c.vocab(), "hidden × expansion", c.hidden() * c.expansion());
  }

  @Override
  public LanguageModel create(TrainingSpec spec, ModelContext ctx) { return new MlpLanguageModel(config(spec), ctx); }
}
