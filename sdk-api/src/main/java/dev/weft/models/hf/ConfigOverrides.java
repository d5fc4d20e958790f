package dev.weft.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.spec.SpecException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code weft model init --set KEY=VALUE}: a published config.json with some of its values replaced, each checked
 * against the value it replaces (a whole number for a whole number, a number for a number, true/false for a flag) and
 * the shapes checked together afterwards, so a bad key or value is one line before anything is written. Pure.
 */
public final class ConfigOverrides {
  /** Keys a preset may lack that the decoder families read. */
  private static final Set<String> OPTIONAL = Set.of("head_dim", "attention_bias", "mlp_bias");

  private ConfigOverrides() {}

  /** {@code config} (changed in place) with each {@code KEY=VALUE} of {@code sets} applied, in order; {@code field} names the flag. */
  public static ObjectNode apply(ObjectNode config, List<String> sets, String field) {
    for (String set : sets) {
      int eq = set.indexOf('=');
      if (eq <= 0) throw new SpecException(field, "'" + set + "' is not KEY=VALUE; write it like hidden_size=256");
      String key = set.substring(0, eq).strip(), value = set.substring(eq + 1).strip();
      JsonNode old = config.get(key);
      if (old == null && !OPTIONAL.contains(key)) {
        Set<String> known = new TreeSet<>(OPTIONAL);
        config.fieldNames().forEachRemaining(known::add);
        throw new SpecException(field, "'" + key + "' is not a key of this config.json; known: " + known);
      }
      config.set(key, parse(key, value, old, field));
    }
    requireShapes(config, field);
    return config;
  }

  /** {@code value} as the type of {@code old} (absent: what the optional key holds). */
  private static JsonNode parse(String key, String value, JsonNode old, String field) {
    var f = dev.weft.spec.SpecIO.jsonMapper().getNodeFactory();
    boolean flag = old != null ? old.isBoolean() : !key.equals("head_dim");
    if (flag) {
      if (!value.equals("true") && !value.equals("false")) throw new SpecException(field, key + "=" + value + ": " + key + " is true or false");
      return f.booleanNode(Boolean.parseBoolean(value));
    }
    if (old == null || old.isIntegralNumber()) {
      long min = key.endsWith("_token_id") ? 0 : 1;
      try {
        long v = Long.parseLong(value);
        if (v >= min && v <= Integer.MAX_VALUE) return f.numberNode(v);
      } catch (NumberFormatException e) {
        // named below
      }
      throw new SpecException(field, key + "=" + value + ": " + key + " is a whole number from " + min + " to " + Integer.MAX_VALUE);
    }
    if (old.isNumber()) {
      try {
        double v = Double.parseDouble(value);
        if (Double.isFinite(v) && v >= 0) return f.numberNode(v);
      } catch (NumberFormatException e) {
        // named below
      }
      throw new SpecException(field, key + "=" + value + ": " + key + " is a finite number >= 0");
    }
    if (old.isTextual()) return f.textNode(value);
    throw new SpecException(field, key + " holds " + old + ", which --set does not write; edit the written config.json instead");
  }

  /** The sizes the decoder needs to agree: heads divide the width (or head_dim is given), kv heads divide heads. */
  private static void requireShapes(JsonNode c, String field) {
    long hidden = c.path("hidden_size").asLong(), heads = c.path("num_attention_heads").asLong();
    long kv = c.path("num_key_value_heads").asLong(heads);
    if (heads > 0 && !c.hasNonNull("head_dim") && hidden % heads != 0) {
      throw new SpecException(field, "num_attention_heads=" + heads + " does not divide hidden_size=" + hidden + "; set one so it does, or set head_dim");
    }
    if (kv > 0 && heads % kv != 0) {
      throw new SpecException(field, "num_key_value_heads=" + kv + " does not divide num_attention_heads=" + heads + "; set one so it does");
    }
  }

  /** bos/eos ids inside the vocabulary (a smaller vocab_size, or a tokenizer of its own, moves them). */
  public static void requireIds(JsonNode c, String field) {
    for (String id : List.of("bos_token_id", "eos_token_id")) {
      JsonNode v = c.get(id);
      if (v == null) continue;
      for (JsonNode e : v.isArray() ? v : List.of(v)) {
        if (e.isIntegralNumber() && e.asLong() >= c.path("vocab_size").asLong(Long.MAX_VALUE)) {
          throw new SpecException(field, id + "=" + v + " is outside vocab_size=" + c.path("vocab_size") + "; --set " + id + "=ID, or give --tokenizer");
        }
      }
    }
  }
}
