package dev.weft.models.gpt;

import dev.weft.models.LanguageModel;
import dev.weft.models.ModelContext;
import dev.weft.models.ModelFactories;
import dev.weft.models.ModelFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.models.hf.HfCheckpoint;
import dev.weft.models.hf.HuggingFaceFormat;
import dev.weft.spec.SpecException;
import org.bytedeco.pytorch.Tensor;
import dev.weft.spec.TrainingSpec;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code model.factory: gpt} — the reference decoder-only transformer. */
public final class GptFactory implements ModelFactory, HuggingFaceFormat {
  @Override public String name() { return "gpt"; }
  @Override public boolean staged() { return true; }
  @Override public String modelType() { return "gpt2"; }

  @Override
  public Tensor read(String name, long[] shape, HfCheckpoint hf) { return Gpt2Format.read(name, shape, hf); }

  @Override
  public Map<String, Tensor> toHf(Map<String, Tensor> weights, TrainingSpec spec) { return Gpt2Format.toHf(weights, GptConfig.of(spec)); }

  @Override
  public ObjectNode hfConfig(TrainingSpec spec) { return Gpt2Format.hfConfig(GptConfig.of(spec)); }

  @Override
  public void validate(TrainingSpec spec) {
    GptConfig c = GptConfig.of(spec);
    if (c.hidden() % c.heads() != 0) {
      throw new SpecException("model.config.heads", c.heads() + " does not divide hidden=" + c.hidden() + "; pick a divisor of " + c.hidden());
    }
    ModelContext.partitionFor(spec.parallel(), c.layers());
    ModelFactories.requireDataVocab(spec, c.vocab(), "model.config.vocab");
  }

  @Override
  public Map<String, Integer> splitSizes(TrainingSpec spec) {
    GptConfig c = GptConfig.of(spec);
    Map<String, Integer> m = new LinkedHashMap<>();
    m.put("model.config.heads (attention heads)", c.heads());
    m.put("model.config.hidden", c.hidden());
    m.put("model.config.mlpRatio (MLP size hidden × mlpRatio)", c.mlpHidden());
    m.put("model.config.vocab", c.vocab());
    return m;
  }

  @Override
  public LanguageModel create(TrainingSpec spec, ModelContext ctx) {
    GptConfig c = GptConfig.of(spec);
    return new Gpt(c, ctx.layers(), ctx.partition(c.layers()), ctx.ppRank());
  }

  @Override
  public java.util.Optional<dev.weft.models.ModelShape> shape(TrainingSpec spec) { return java.util.Optional.of(GptConfig.of(spec).shape()); }
}
