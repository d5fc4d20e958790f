package dev.weft.models.gpt;

import dev.weft.models.LanguageModel;
import dev.weft.models.ModelContext;
import dev.weft.models.ModelFactories;
import dev.weft.models.ModelFactory;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code model.factory: gpt} — the reference decoder-only transformer. */
public final class GptFactory implements ModelFactory {
  @Override public String name() { return "gpt"; }
  @Override public boolean staged() { return true; }

  @Override
  public void validate(TrainingSpec spec) {
    GptConfig c = GptConfig.from(spec.model().config(), spec.data().seqLen());
    if (c.hidden() % c.heads() != 0) {
      throw new SpecException("model.config.heads", c.heads() + " does not divide hidden=" + c.hidden() + "; pick a divisor of " + c.hidden());
    }
    ModelContext.partitionFor(spec.parallel(), c.layers());
    ModelFactories.requireDataVocab(spec, c.vocab(), "model.config.vocab");
  }

  @Override
  public Map<String, Integer> splitSizes(TrainingSpec spec) {
    GptConfig c = GptConfig.from(spec.model().config(), spec.data().seqLen());
    Map<String, Integer> m = new LinkedHashMap<>();
    m.put("model.config.heads (attention heads)", c.heads());
    m.put("model.config.hidden", c.hidden());
    m.put("model.config.mlpRatio (MLP size hidden × mlpRatio)", c.mlpHidden());
    m.put("model.config.vocab", c.vocab());
    return m;
  }

  @Override
  public LanguageModel create(TrainingSpec spec, ModelContext ctx) {
    GptConfig c = GptConfig.from(spec.model().config(), spec.data().seqLen());
    return new Gpt(c, ctx.layers(), ctx.partition(c.layers()), ctx.ppRank());
  }
}
