package dev.weft.models.gpt;

import dev.weft.models.LanguageModel;
import dev.weft.models.ModelContext;
import dev.weft.models.ModelFactory;
import dev.weft.models.layers.DenseLayers;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;

/** {@code model.factory: gpt} — the reference decoder-only transformer. */
public final class GptFactory implements ModelFactory {
  @Override public String name() { return "gpt"; }

  @Override
  public void validate(TrainingSpec spec) {
    GptConfig c = GptConfig.from(spec.model().config(), spec.data().seqLen());
    if (c.hidden() % c.heads() != 0) {
      throw new SpecException("model.config.heads", c.heads() + " does not divide hidden=" + c.hidden() + "; pick a divisor of " + c.hidden());
    }
    if (c.vocab() < 256) {
      throw new SpecException("model.config.vocab", c.vocab() + " is below 256, the number of byte tokens; use at least 256");
    }
  }

  @Override
  public LanguageModel create(TrainingSpec spec, ModelContext ctx) {
    GptConfig c = GptConfig.from(spec.model().config(), spec.data().seqLen());
    return new Gpt(c, new DenseLayers(ctx.seed()));
  }
}
