package dev.weft.models.gpt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.models.hf.HfCheckpoint;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Json;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * The GPT as Hugging Face's GPT-2 ({@code GPT2LMHeadModel}). GPT-2 stores its linears as Conv1D,
 * weights [in, out] (the transpose of a linear's), and q, k, v fused in {@code attn.c_attn}; Weft's
 * GPT keeps them separate, [out, in]. Position embeddings: the first {@code data.seqLen} rows of
 * {@code wpe}. The head is {@code lm_head.weight} when the file has it, else the tied {@code wte};
 * export writes it and says {@code tie_word_embeddings: false}, because Weft trains it untied.
 */
final class Gpt2Format {
  private static final Pattern BLOCK = Pattern.compile("blocks\\.(\\d+)\\.(.+)");

  private Gpt2Format() {}

  /** Sizes from a GPT-2 config.json, with GPT-2's tanh GELU. */
  static GptConfig config(TrainingSpec spec) {
    JsonNode c = HfCheckpoint.config(Path.of(spec.model().pretrained()), "model.pretrained");
    if (!"gpt2".equals(c.path("model_type").asText())) {
      throw new SpecException("model.pretrained", "config.json says model_type '" + c.path("model_type").asText()
          + "'; model.factory gpt reads 'gpt2'");
    }
    int hidden = size(c, "n_embd", null), inner = c.hasNonNull("n_inner") ? size(c, "n_inner", null) : 4 * hidden;
    if (hidden < 1 || inner % hidden != 0) throw new SpecException("model.pretrained", "n_inner=" + inner + " is not a multiple of n_embd=" + hidden);
    int positions = size(c, "n_positions", 1024);
    if (spec.data().seqLen() > positions) {
      throw new SpecException("data.seqLen", spec.data().seqLen() + " exceeds the model's n_positions=" + positions + "; use at most " + positions);
    }
    String act = c.path("activation_function").asText("gelu_new");
    if (!act.equals("gelu_new") && !act.equals("gelu_pytorch_tanh") && !act.equals("gelu")) {
      throw new SpecException("model.pretrained", "activation_function '" + act + "' is not supported; use gelu_new or gelu");
    }
    return new GptConfig(size(c, "n_layer", null), hidden, size(c, "n_head", null), inner / hidden, size(c, "vocab_size", null),
        spec.data().seqLen(), act.equals("gelu") ? "gelu" : "gelu_tanh");
  }

  private static int size(JsonNode config, String key, Integer dflt) {
    return dev.weft.models.ModelConfigs.positiveInt(config.path(key), "model.pretrained config.json " + key, dflt);
  }

  /** Weft parameter {@code name} (of {@code shape}) from the GPT-2 tensors. */
  static Tensor read(String name, long[] shape, HfCheckpoint hf) {
    Matcher m = BLOCK.matcher(name);
    if (!m.matches()) {
      return switch (name) {
        case "tok_emb.weight" -> get(hf, "wte.weight");
        case "pos_emb.weight" -> get(hf, "wpe.weight").narrow(0, 0, shape[0]).contiguous();
        case "ln_f.weight", "ln_f.bias" -> get(hf, name);
        case "lm_head.weight" -> hf.has("lm_head.weight") ? hf.read("lm_head.weight").to(ScalarType.Float) : get(hf, "wte.weight");
        default -> throw new SpecException("model.pretrained", "no GPT-2 tensor for " + name);
      };
    }
    String h = "h." + m.group(1) + ".", rest = m.group(2);
    return switch (rest) {
      case "ln_1.weight", "ln_1.bias", "ln_2.weight", "ln_2.bias" -> get(hf, h + rest);
      case "attn.q.weight", "attn.k.weight", "attn.v.weight" ->
          get(hf, h + "attn.c_attn.weight").t().narrow(0, qkvIndex(rest) * shape[0], shape[0]).contiguous();
      case "attn.q.bias", "attn.k.bias", "attn.v.bias" -> get(hf, h + "attn.c_attn.bias").narrow(0, qkvIndex(rest) * shape[0], shape[0]).contiguous();
      case "attn.proj.weight" -> get(hf, h + "attn.c_proj.weight").t().contiguous();
      case "attn.proj.bias" -> get(hf, h + "attn.c_proj.bias");
      case "mlp.fc1.weight" -> get(hf, h + "mlp.c_fc.weight").t().contiguous();
      case "mlp.fc1.bias" -> get(hf, h + "mlp.c_fc.bias");
      case "mlp.fc2.weight" -> get(hf, h + "mlp.c_proj.weight").t().contiguous();
      case "mlp.fc2.bias" -> get(hf, h + "mlp.c_proj.bias");
      default -> throw new SpecException("model.pretrained", "no GPT-2 tensor for " + name);
    };
  }

  private static int qkvIndex(String rest) { return "qkv".indexOf(rest.charAt(5)); }

  /** GPT-2 files name tensors with or without the {@code transformer.} prefix. */
  private static Tensor get(HfCheckpoint hf, String name) {
    String prefixed = "transformer." + name;
    return hf.read(hf.has(prefixed) ? prefixed : name).to(ScalarType.Float);
  }

  /** Weft tensors → GPT-2's, in the order transformers writes them. */
  static Map<String, Tensor> toHf(Map<String, Tensor> w, GptConfig c) {
    Map<String, Tensor> out = new LinkedHashMap<>();
    out.put("transformer.wte.weight", w.get("tok_emb.weight"));
    out.put("transformer.wpe.weight", w.get("pos_emb.weight"));
    for (int i = 0; i < c.layers(); i++) {
      String b = "blocks." + i + ".", h = "transformer.h." + i + ".";
      out.put(h + "ln_1.weight", w.get(b + "ln_1.weight"));
      out.put(h + "ln_1.bias", w.get(b + "ln_1.bias"));
      out.put(h + "attn.c_attn.weight", cat(w, b + "attn.", ".weight").t().contiguous());
      out.put(h + "attn.c_attn.bias", cat(w, b + "attn.", ".bias"));
      out.put(h + "attn.c_proj.weight", w.get(b + "attn.proj.weight").t().contiguous());
      out.put(h + "attn.c_proj.bias", w.get(b + "attn.proj.bias"));
      out.put(h + "ln_2.weight", w.get(b + "ln_2.weight"));
      out.put(h + "ln_2.bias", w.get(b + "ln_2.bias"));
      out.put(h + "mlp.c_fc.weight", w.get(b + "mlp.fc1.weight").t().contiguous());
      out.put(h + "mlp.c_fc.bias", w.get(b + "mlp.fc1.bias"));
      out.put(h + "mlp.c_proj.weight", w.get(b + "mlp.fc2.weight").t().contiguous());
      out.put(h + "mlp.c_proj.bias", w.get(b + "mlp.fc2.bias"));
    }
    out.put("transformer.ln_f.weight", w.get("ln_f.weight"));
    out.put("transformer.ln_f.bias", w.get("ln_f.bias"));
    out.put("lm_head.weight", w.get("lm_head.weight"));
    return out;
  }

  private static Tensor cat(Map<String, Tensor> w, String prefix, String suffix) {
    TensorVector v = new TensorVector();
    for (String p : new String[] {"q", "k", "v"}) v.push_back(w.get(prefix + p + suffix));
    return torch.cat(v, 0);
  }

  static ObjectNode hfConfig(GptConfig c) {
    ObjectNode n = Json.PLAIN.createObjectNode();
    n.putArray("architectures").add("GPT2LMHeadModel");
    n.put("model_type", "gpt2").put("vocab_size", c.vocab()).put("n_positions", c.seqLen()).put("n_ctx", c.seqLen())
        .put("n_embd", c.hidden()).put("n_layer", c.layers()).put("n_head", c.heads()).put("n_inner", c.mlpHidden())
        .put("activation_function", "gelu_tanh".equals(c.activation()) ? "gelu_new" : "gelu").put("layer_norm_epsilon", 1e-5)
        .put("tie_word_embeddings", false).put("resid_pdrop", 0.0).put("embd_pdrop", 0.0).put("attn_pdrop", 0.0)
        .put("initializer_range", 0.02).put("torch_dtype", "float32");
    return n;
  }
}
