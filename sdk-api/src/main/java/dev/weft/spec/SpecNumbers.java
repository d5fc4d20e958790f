package dev.weft.spec;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Numbers and sections of the spec records checked on the tree before binding (pure), each error naming
 * the field: a fraction ({@code parallel.dp=1.5}) or a value out of range ({@code train.steps=1000000000000}),
 * where binding alone would truncate or fail without a path; NaN or infinity in any number ({@code lr: 1e400},
 * {@code --set train.lr=NaN}, a number inside {@code model.config}), which comparisons let through; and a
 * section or a text field set to null ({@code checkpoint: ~}, {@code resume: ~}), which would bind to nothing.
 */
final class SpecNumbers {
  private static final Set<String> NON_FINITE = Set.of("nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity",
      ".nan", ".inf", "+.inf", "-.inf");

  private SpecNumbers() {}

  static void check(JsonNode tree, Class<?> record) { check(tree, record, ""); }

  private static void check(JsonNode node, Class<?> type, String path) {
    if (node == null || !node.isObject() || !type.isRecord()) return;
    for (RecordComponent c : type.getRecordComponents()) {
      JsonNode v = node.get(c.getName());
      String at = path.isEmpty() ? c.getName() : path + "." + c.getName();
      Class<?> t = c.getType();
      if (t == int.class || t == Integer.class) whole(v, at, Integer.MIN_VALUE, Integer.MAX_VALUE);
      else if (t == long.class || t == Long.class) whole(v, at, Long.MIN_VALUE, Long.MAX_VALUE);
      else if (t == double.class || t == Double.class || t == float.class) finite(v, at, true);
      else if (t.isRecord() && v != null && v.isNull()) {
        throw new SpecException(at, "is empty (null); give its fields, or remove the line to keep the defaults");
      } else if (t == String.class && v != null && v.isNull() && !at.startsWith("deployment.")) {
        // the engine reads these as text ("" = unset); deployment's nulls are Kubernetes' own "not set"
        throw new SpecException(at, "is null; give a value, \"\" for none, or remove the line to keep the default");
      } else if (t.isRecord()) check(v, t, at);
      else if (t == java.util.List.class && v != null && v.isArray()) listOf(v, c, at);
      else anywhere(v, at);
    }
  }

  /** A list of records ({@code data.sources}) is checked item by item; any other list as free-form values. */
  private static void listOf(JsonNode v, RecordComponent c, String at) {
    Class<?> item = c.getGenericType() instanceof java.lang.reflect.ParameterizedType p
        && p.getActualTypeArguments()[0] instanceof Class<?> k ? k : Object.class;
    for (int i = 0; i < v.size(); i++) {
      if (item.isRecord()) check(v.get(i), item, at + "[" + i + "]");
      else anywhere(v.get(i), at + "[" + i + "]");
    }
  }

  /** Free-form values ({@code model.config}, {@code deployment.affinity}): every number in them must be finite. */
  private static void anywhere(JsonNode v, String at) {
    if (v == null) return;
    if (v.isNumber()) finite(v, at, false);
    else if (v.isArray()) for (int i = 0; i < v.size(); i++) anywhere(v.get(i), at + "[" + i + "]");
    else if (v.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        anywhere(e.getValue(), at + "." + e.getKey());
      }
    }
  }

  /** NaN and infinities are refused; in a number field, their spellings as text too (binding would accept "NaN"). */
  private static void finite(JsonNode v, String path, boolean numberField) {
    if (v == null) return;
    boolean bad = v.isNumber() ? !Double.isFinite(v.doubleValue())
        : numberField && v.isTextual() && NON_FINITE.contains(v.textValue().strip().toLowerCase(java.util.Locale.ROOT));
    if (bad) throw new SpecException(path, "'" + v.asText() + "' is not a finite number; NaN and infinity are refused");
  }

  private static void whole(JsonNode v, String path, long min, long max) {
    if (v == null || !v.isNumber()) return; // strings and other types: binding names the field
    finite(v, path, true);
    BigDecimal d = v.decimalValue();
    if (d.stripTrailingZeros().scale() > 0) throw new SpecException(path, "expected a whole number, not " + v.asText());
    if (d.compareTo(BigDecimal.valueOf(min)) < 0 || d.compareTo(BigDecimal.valueOf(max)) > 0) {
      throw new SpecException(path, v.asText() + " is out of range (" + min + " to " + max + ")");
    }
  }
}
