package dev.weft.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.checkpoint.SafetensorsWriter;
import dev.weft.spec.LoraSpec;
import dev.weft.spec.SpecException;
import dev.weft.util.BoundedFiles;
import dev.weft.util.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.bytedeco.pytorch.Tensor;

/**
 * A PEFT LoRA adapter directory, as {@code peft}'s {@code save_pretrained} writes it and
 * {@code PeftModel.from_pretrained} reads it: {@code adapter_config.json} (LoraConfig's field names) and
 * {@code adapter_model.safetensors} with the adapters under PEFT's names, the parameter's own name
 * behind {@code base_model.model.} ({@code base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight}).
 */
public final class PeftAdapter {
  public static final String CONFIG = "adapter_config.json";
  public static final String WEIGHTS = "adapter_model.safetensors";
  static final String PREFIX = "base_model.model.";

  private final Path dir;
  private final JsonNode config;
  private final Map<String, Tensor> tensors;

  private PeftAdapter(Path dir, JsonNode config, Map<String, Tensor> tensors) {
    this.dir = dir;
    this.config = config;
    this.tensors = tensors;
  }

  /** Writes {@code adapters} (by Weft parameter name, whole) and the config; returns the tensors written. */
  public static int write(Map<String, Tensor> adapters, LoraSpec lora, String baseModel, Path dir) throws IOException {
    Files.createDirectories(dir);
    Map<String, Tensor> named = new TreeMap<>();
    adapters.forEach((name, t) -> named.put(PREFIX + name, t));
    SafetensorsWriter.write(dir.resolve(WEIGHTS), ConsolidatedWeights.items(named), Map.of("format", "pt"));
    Files.writeString(dir.resolve(CONFIG), Json.PRETTY.writeValueAsString(config(lora, baseModel)) + "\n");
    return named.size();
  }

  /** adapter_config.json: LoraConfig's fields, as peft writes them for a causal language model. */
  static ObjectNode config(LoraSpec lora, String baseModel) {
    ObjectNode c = Json.PLAIN.createObjectNode();
    c.put("peft_type", "LORA").put("task_type", "CAUSAL_LM").put("base_model_name_or_path", baseModel)
        .put("r", lora.rank()).put("lora_dropout", lora.dropout())
        .put("use_rslora", lora.rslora()).put("bias", "none").put("fan_in_fan_out", false).put("inference_mode", true)
        .put("init_lora_weights", true).put("use_dora", false).putNull("modules_to_save").putNull("layers_to_transform")
        .putNull("layers_pattern").putNull("revision");
    if (lora.alpha() == Math.rint(lora.alpha())) c.put("lora_alpha", (long) lora.alpha());
    else c.put("lora_alpha", lora.alpha());
    c.putObject("rank_pattern");
    c.putObject("alpha_pattern");
    var targets = c.putArray("target_modules");
    lora.targets().stream().sorted().forEach(targets::add);
    return c;
  }

  /** Reads an adapter directory; {@code field} names the spec field in errors. */
  public static PeftAdapter read(Path dir, String field) {
    Path cfg = dir.resolve(CONFIG), weights = dir.resolve(WEIGHTS);
    if (!Files.isRegularFile(cfg) || !Files.isRegularFile(weights)) {
      throw new SpecException(field, dir + " is not a PEFT adapter directory: it needs " + CONFIG + " and " + WEIGHTS);
    }
    JsonNode c;
    try {
      c = Json.STRICT.readTree(BoundedFiles.read(cfg, 1 << 20));
    } catch (BoundedFiles.Refused e) {
      throw new SpecException(field, cfg + " " + e.getMessage());
    } catch (IOException e) {
      throw new SpecException(field, cfg + " cannot be read as JSON: " + e.getMessage());
    }
    if (!"LORA".equals(c.path("peft_type").asText())) {
      throw new SpecException(field, cfg + " has peft_type " + c.path("peft_type") + "; Weft loads LORA adapters");
    }
    Map<String, Tensor> byName = new LinkedHashMap<>();
    ConsolidatedWeights.load(weights).forEach((name, t) -> byName.put(stripped(name), t));
    return new PeftAdapter(dir, c, byName);
  }

  /** A PEFT name as the parameter's name ({@code .default} adapter names, as older peft wrote, are dropped too). */
  private static String stripped(String name) {
    String n = name.startsWith(PREFIX) ? name.substring(PREFIX.length()) : name;
    return n.replace(".lora_A.default.weight", ".lora_A.weight").replace(".lora_B.default.weight", ".lora_B.weight");
  }

  public int rank() { return config.path("r").asInt(); }
  public double alpha() { return config.path("lora_alpha").asDouble(); }
  public boolean rslora() { return config.path("use_rslora").asBoolean(false); }
  public String baseModel() { return config.path("base_model_name_or_path").asText(""); }

  /** target_modules, as a list (peft also writes a single name as a string). */
  public java.util.List<String> targets() {
    JsonNode t = config.path("target_modules");
    if (t.isTextual()) return java.util.List.of(t.asText());
    java.util.List<String> out = new java.util.ArrayList<>();
    t.forEach(n -> out.add(n.asText()));
    return out;
  }
  public Map<String, Tensor> tensors() { return tensors; }

  /** The adapter matches the spec's LoRA settings, else one line naming the field to change. */
  public void requireMatches(LoraSpec lora) {
    if (rank() != lora.rank()) {
      throw new SpecException("train.lora.rank", lora.rank() + " but the adapter " + dir + " has r=" + rank() + "; set train.lora.rank=" + rank());
    }
    if (alpha() != lora.alpha()) {
      throw new SpecException("train.lora.alpha", lora.alpha() + " but the adapter " + dir + " has lora_alpha=" + alpha()
          + "; set train.lora.alpha=" + alpha());
    }
    if (rslora() != lora.rslora()) {
      throw new SpecException("train.lora.rslora", lora.rslora() + " but the adapter " + dir + " has use_rslora=" + rslora());
    }
  }

  /** The adapter tensor for parameter {@code name} (shape checked by the caller). */
  public Tensor weight(String name, long[] shape) {
    Tensor t = tensors.get(name);
    if (t == null) {
      throw new SpecException("train.lora.adapter", dir + " has no " + PREFIX + name + "; it adapts other modules than"
          + " train.lora.targets names");
    }
    return t.to(org.bytedeco.pytorch.global.torch.ScalarType.Float);
  }
}
