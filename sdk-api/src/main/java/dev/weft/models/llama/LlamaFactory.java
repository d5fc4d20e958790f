package dev.weft.models.llama;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.models.LanguageModel;
import dev.weft.models.ModelContext;
import dev.weft.models.ModelFactories;
import dev.weft.models.ModelFactory;
import dev.weft.models.hf.HfCheckpoint;
import dev.weft.models.hf.HuggingFaceFormat;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;

/** {@code model.factory: llama} — Llama sized like a Hugging Face config.json, loading and writing its weights. */
public final class LlamaFactory implements ModelFactory, HuggingFaceFormat {
  @Override public String name() { return "llama"; }
  @Override public boolean staged() { return true; }
  @Override public String modelType() { return "llama"; }

  @Override
  public void validate(TrainingSpec spec) {
    LlamaConfig c = LlamaConfig.of(spec);
    if (c.heads() % c.kvHeads() != 0) {
      throw new SpecException("model.config.num_key_value_heads", c.kvHeads() + " does not divide num_attention_heads="
          + c.heads() + "; grouped-query attention shares each key/value head among a whole number of query heads");
    }
    if (c.headDim() % 2 != 0) throw new SpecException("model.config.head_dim", c.headDim() + " must be even for rotary embeddings");
    var p = spec.parallel();
    ModelContext.partitionFor(p, c.layers());
    ModelFactories.requireDataVocab(spec, c.vocab(), "model.config.vocab_size");
  }

  @Override
  public Map<String, Integer> splitSizes(TrainingSpec spec) {
    LlamaConfig c = LlamaConfig.of(spec);
    Map<String, Integer> m = new LinkedHashMap<>();
    m.put("num_attention_heads", c.heads());
    m.put("num_key_value_heads", c.kvHeads());
    m.put("intermediate_size", c.intermediate());
    m.put("vocab_size", c.vocab());
    return m;
  }

  @Override
  public LanguageModel create(TrainingSpec spec, ModelContext ctx) {
    LlamaConfig c = LlamaConfig.of(spec);
    return new Llama(c, ctx.layers(), ctx.partition(c.layers()), ctx.ppRank());
  }

  /** Parameters carry Hugging Face's names; weights are computed in fp32 whatever the file stores. */
  @Override
  public Tensor read(String name, long[] shape, HfCheckpoint hf) {
    return hf.read(name).to(ScalarType.Float);
  }

  /** The same names; a tied head is not written (transformers ties it back from the embedding). */
  @Override
  public Map<String, Tensor> toHf(Map<String, Tensor> weights, TrainingSpec spec) {
    Map<String, Tensor> out = new LinkedHashMap<>(weights);
    if (LlamaConfig.of(spec).tied()) out.remove("lm_head.weight");
    return out;
  }

  @Override
  public ObjectNode hfConfig(TrainingSpec spec) {
    return LlamaConfig.of(spec).toHf("float32");
  }
}
