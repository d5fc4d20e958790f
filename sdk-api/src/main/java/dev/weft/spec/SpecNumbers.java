package dev.weft.spec;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;

/**
 * Whole-number fields of the spec records checked on the tree before binding (pure): a fraction
 * ({@code parallel.dp=1.5}) or a value out of the field's range ({@code train.steps=1000000000000})
 * is an error naming the field, where binding alone would truncate or fail without a path.
 */
final class SpecNumbers {
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
      else check(v, t, at);
    }
  }

  private static void whole(JsonNode v, String path, long min, long max) {
    if (v == null || !v.isNumber()) return; // strings and other types: binding names the field
    BigDecimal d = v.decimalValue();
    if (d.stripTrailingZeros().scale() > 0) throw new SpecException(path, "expected a whole number, not " + v.asText());
    if (d.compareTo(BigDecimal.valueOf(min)) < 0 || d.compareTo(BigDecimal.valueOf(max)) > 0) {
      throw new SpecException(path, v.asText() + " is out of range (" + min + " to " + max + ")");
    }
  }
}
