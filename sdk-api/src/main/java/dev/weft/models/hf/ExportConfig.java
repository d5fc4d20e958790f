package dev.weft.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.checkpoint.DType;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The config.json of an export. With a source directory it is the source's, field by field, with only
 * what training changed: the keys where the run's model settings ({@code model.config} on top of the
 * source) give another value than the source alone (found by asking the format for both), the dtype,
 * and {@code tie_word_embeddings} when the source does not say explicitly what the written tensors are
 * (a separate head or none). Without a source it is the format's own. Pure.
 *
 * @param changed key → "old → new", in the order found
 */
public record ExportConfig(ObjectNode json, Map<String, String> changed) {
  /**
   * @param source the source's config.json (null: none)
   * @param trained the format's config.json for the trained spec
   * @param untouched the format's config.json for the source alone (null without a source)
   * @param writesHead whether {@code lm_head.weight} is among the written tensors
   */
  public static ExportConfig of(JsonNode source, ObjectNode trained, ObjectNode untouched, DType dtype, boolean writesHead) {
    Map<String, String> changed = new LinkedHashMap<>();
    ObjectNode json;
    if (source == null) {
      json = trained.deepCopy();
    } else {
      json = ((ObjectNode) source).deepCopy();
      for (Iterator<Map.Entry<String, JsonNode>> it = trained.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode before = untouched.get(e.getKey());
        if (isDtypeKey(e.getKey()) || e.getValue().equals(before)) continue; // the run did not change it
        set(json, e.getKey(), e.getValue(), changed);
      }
    }
    String dtypeKey = json.has("dtype") && !json.has("torch_dtype") ? "dtype" : "torch_dtype";
    set(json, dtypeKey, SpecIO.jsonMapper().getNodeFactory().textNode(HfDtypes.torchName(dtype)), source == null ? null : changed);
    JsonNode tied = json.get("tie_word_embeddings"); // absent means tied for some families (transformers' default), untied for others
    if (tied == null || !tied.isBoolean() || tied.asBoolean() == writesHead) {
      set(json, "tie_word_embeddings", SpecIO.jsonMapper().getNodeFactory().booleanNode(!writesHead), changed);
    }
    return new ExportConfig(json, changed);
  }

  /** {@code spec} without its {@code model.config} settings: what the source directory alone describes. */
  public static TrainingSpec sourceView(TrainingSpec spec) {
    ObjectNode tree = SpecIO.toTree(spec);
    ((ObjectNode) tree.get("model")).putObject("config");
    return SpecIO.bind(tree);
  }

  private static boolean isDtypeKey(String key) { return key.equals("torch_dtype") || key.equals("dtype"); }

  private static void set(ObjectNode json, String key, JsonNode value, Map<String, String> changed) {
    JsonNode old = json.get(key);
    if (value.equals(old)) return;
    json.set(key, value);
    if (changed != null) changed.put(key, (old == null ? "absent" : old.toString()) + " → " + value);
  }
}
