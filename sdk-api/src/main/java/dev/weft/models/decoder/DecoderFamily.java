package dev.weft.models.decoder;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.models.LanguageModel;
import dev.weft.models.ModelContext;
import dev.weft.models.ModelFactories;
import dev.weft.models.ModelFactory;
import dev.weft.models.hf.HfCheckpoint;
import dev.weft.models.hf.HuggingFaceFormat;
import dev.weft.models.moe.FusedExperts;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Json;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.bytedeco.pytorch.Tensor;

/**
 * A model family on the one {@link Decoder}: what it reads from config.json ({@link #read}) and its
 * tensor names ({@link #names}); the factory, validation, tensor check, loading and export are shared.
 * The factory name is the family's {@code model_type}, so a Hugging Face directory picks its family.
 */
public abstract class DecoderFamily implements ModelFactory, HuggingFaceFormat {
  /** The family's config.json → decoder; starts from {@link ConfigJson#llamaLike} and sets what the family adds. */
  protected abstract DecoderConfig read(ConfigJson c);

  /** The keys of model.config this family reads beyond {@link ConfigJson#COMMON_KEYS}. */
  protected Set<String> extraKeys() { return Set.of(); }

  /** The family's tensor names (also the decoder's parameter names). */
  protected DecoderNames names() { return DecoderNames.LLAMA; }

  /** The architecture name transformers writes in config.json's {@code architectures}. */
  protected abstract String architecture();

  @Override public String modelType() { return name(); }
  @Override public boolean staged() { return true; }

  public DecoderConfig config(TrainingSpec spec) { return read(configJson(spec)); }

  private ConfigJson configJson(TrainingSpec spec) {
    Set<String> keys = new HashSet<>(ConfigJson.COMMON_KEYS);
    keys.addAll(extraKeys());
    return ConfigJson.of(spec, modelType(), keys);
  }

  @Override
  public void validate(TrainingSpec spec) {
    DecoderConfig c = config(spec);
    if (spec.model().hasPretrained()) {
      HfCheckpoint hf = HfCheckpoint.open(Path.of(spec.model().pretrained()), "model.pretrained");
      Map<String, long[]> expected = c.tensors(names());
      if (c.moe() != null && FusedExperts.in(hf.names())) expected = FusedExperts.shapes(expected, c.moe().names());
      TensorCheck.require(hf, expected, names().head() + ".weight", c.tied(), this::configKeyFor, configJson(spec));
    }
    if (c.moe() != null) MoeRules.check(spec, c);
    if (c.heads() % c.kvHeads() != 0) {
      throw new SpecException("model.config.num_key_value_heads", c.kvHeads() + " does not divide num_attention_heads="
          + c.heads() + "; grouped-query attention shares each key/value head among a whole number of query heads");
    }
    if (c.rope() != null && c.headDim() % 2 != 0) throw new SpecException("model.config.head_dim", c.headDim() + " must be even for rotary embeddings");
    ModelContext.partitionFor(spec.parallel(), c.layers());
    ModelFactories.requireDataVocab(spec, c.vocab(), "model.config.vocab_size");
  }

  @Override
  public Map<String, Integer> splitSizes(TrainingSpec spec) {
    DecoderConfig c = config(spec);
    Map<String, Integer> m = new LinkedHashMap<>();
    m.put("num_attention_heads", c.heads());
    m.put("num_key_value_heads", c.kvHeads());
    m.put("intermediate_size", c.intermediate());
    if (c.moe() != null) {
      m.put("moe_intermediate_size", c.moe().expertHidden());
      if (c.moe().shared()) m.put("shared_expert_intermediate_size", c.moe().sharedHidden());
    }
    m.put("vocab_size", c.vocab());
    return m;
  }

  @Override
  public java.util.Optional<dev.weft.models.ModelShape> shape(TrainingSpec spec) {
    return java.util.Optional.of(DecoderShape.of(config(spec), names(), spec.train().lora()));
  }

  @Override
  public LanguageModel create(TrainingSpec spec, ModelContext ctx) {
    DecoderConfig c = config(spec);
    return new Decoder(c, names(), ctx.layers(), ctx.partition(c.layers()), ctx.ppRank(), ctx.seed());
  }

  /**
   * Parameters carry the checkpoint's names; the tensor comes in the file's dtype (the copy into the parameter converts).
   * An expert's weights from transformers 5's fused layout are its slice of the fused tensor.
   */
  @Override
  public Tensor read(String name, long[] shape, HfCheckpoint hf) {
    if (hf.has(name) || !FusedExperts.in(hf.names())) return hf.read(name);
    return FusedExperts.read(name, config(hf).names(), hf::read);
  }

  private dev.weft.models.moe.MoeConfig config(HfCheckpoint hf) {
    ObjectNode json = ((ObjectNode) hf.config()).deepCopy();
    Set<String> keys = new HashSet<>(ConfigJson.COMMON_KEYS);
    keys.addAll(extraKeys());
    json.retain(keys);
    return read(new ConfigJson(json, true, 1)).moe();
  }

  /**
   * The same names; a tied model has no head parameter, so none is written (transformers ties it back). Experts are
   * written in the layout the pretrained source had (fused as transformers 5 writes them, else per expert).
   */
  @Override
  public Map<String, Tensor> toHf(Map<String, Tensor> weights, TrainingSpec spec) {
    DecoderConfig c = config(spec);
    if (c.moe() != null && spec.model().hasPretrained()
        && FusedExperts.in(HfCheckpoint.open(Path.of(spec.model().pretrained()), "model.pretrained").names())) {
      return FusedExperts.fuse(weights, c.moe().names());
    }
    return new LinkedHashMap<>(weights);
  }

  /** The source config.json when there was one (sizes as trained on top), else one written from the sizes. */
  @Override
  public ObjectNode hfConfig(TrainingSpec spec) {
    DecoderConfig c = config(spec);
    ObjectNode n = Json.PLAIN.createObjectNode();
    if (spec.model().hasPretrained()) {
      n.setAll((ObjectNode) HfCheckpoint.config(Path.of(spec.model().pretrained()), "model.pretrained"));
    } else {
      n.putArray("architectures").add(architecture());
      n.put("model_type", modelType()).put("hidden_act", "silu").put("max_position_embeddings", Math.max(c.seqLen(), 2048))
          .put("rope_theta", c.rope().theta()).put("torch_dtype", "float32");
      n.putNull("rope_scaling");
      writeExtras(n, c);
    }
    n.put("vocab_size", c.vocab()).put("hidden_size", c.hidden()).put("intermediate_size", c.intermediate())
        .put("num_hidden_layers", c.layers()).put("num_attention_heads", c.heads()).put("num_key_value_heads", c.kvHeads())
        .put("head_dim", c.headDim()).put("rms_norm_eps", c.normEps()).put("tie_word_embeddings", c.tied())
        .put("initializer_range", c.initStd());
    if (!n.has("torch_dtype") || spec.model().hasPretrained()) n.put("torch_dtype", "float32");
    return n;
  }

  /** Keys a config.json written from sizes (no pretrained source) needs for this family beyond the common ones. */
  protected void writeExtras(ObjectNode n, DecoderConfig c) {}

  /**
   * The config.json key that decides whether {@code tensor} exists, for the tensor check's messages:
   * biases by attention_bias / mlp_bias, q/k norms and positions by the family (model_type), the head
   * by tie_word_embeddings, layers by num_hidden_layers.
   */
  protected String configKeyFor(String tensor) {
    if (tensor.matches(".*\\.self_attn\\.[qkvo]_proj\\.bias")) return "attention_bias";
    if (tensor.matches(".*\\.mlp\\.[a-z_]+\\.bias")) return "mlp_bias";
    if (tensor.startsWith(names().head() + ".")) return "tie_word_embeddings";
    if (tensor.startsWith(names().layerPrefix())) return "num_hidden_layers";
    return "model_type";
  }
}
