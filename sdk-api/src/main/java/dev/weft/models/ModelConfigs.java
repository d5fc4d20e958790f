package dev.weft.models;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.weft.spec.SpecException;
import java.util.Map;

/**
 * Typed model configs: a record (or bean) of the model's settings travels in the spec as
 * {@code model.config} (a plain map, so YAML, {@code --set} and worker pods see it) and is bound back
 * to the type in the factory, with errors naming {@code model.config.FIELD}.
 */
public final class ModelConfigs {
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  private ModelConfigs() {}

  /** {@code config} as a map for {@code model.config}. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> toMap(Object config) {
    return JSON.convertValue(config, Map.class);
  }

  /**
   * A size from {@code model.config} or a config.json ({@code vocab_size}, {@code n_layer}, ...) as an int, read
   * exactly: a whole number from 1 to {@link Integer#MAX_VALUE}. {@code 1e12} is refused as out of range rather
   * than wrapped to -727379968; {@code null} gives {@code dflt} (refused when that is null too). Every family's
   * config reader uses this one.
   */
  public static int positiveInt(Object value, String field, Integer dflt) {
    if (value instanceof com.fasterxml.jackson.databind.JsonNode n) value = n.isNull() || n.isMissingNode() ? null : n.isNumber() ? n.numberValue() : n.asText();
    if (value == null && dflt != null) return dflt;
    java.math.BigDecimal d = exact(value);
    if (d == null || d.signum() <= 0 || d.stripTrailingZeros().scale() > 0) {
      throw new SpecException(field, "'" + value + "' must be a positive whole number");
    }
    if (d.compareTo(java.math.BigDecimal.valueOf(Integer.MAX_VALUE)) > 0) {
      throw new SpecException(field, "'" + value + "' is out of range; use a whole number from 1 to " + Integer.MAX_VALUE);
    }
    return d.intValueExact();
  }

  private static java.math.BigDecimal exact(Object v) {
    if (v instanceof java.math.BigDecimal b) return b;
    if (v instanceof java.math.BigInteger b) return new java.math.BigDecimal(b);
    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) return java.math.BigDecimal.valueOf(((Number) v).longValue());
    if (v instanceof Number n && Double.isFinite(n.doubleValue())) return new java.math.BigDecimal(n.doubleValue());
    return null;
  }

  /** {@code model.config} bound to {@code type}; missing fields take the type's defaults (0/false/null for records). */
  public static <T> T bind(Map<String, Object> config, Class<T> type) {
    try {
      return JSON.convertValue(config, type);
    } catch (IllegalArgumentException e) {
      Throwable c = e.getCause();
      if (c instanceof UnrecognizedPropertyException u) {
        throw new SpecException("model.config." + u.getPropertyName(), "unknown setting of " + type.getSimpleName()
            + "; known: " + u.getKnownPropertyIds());
      }
      if (c instanceof MismatchedInputException m && !m.getPath().isEmpty()) {
        String field = m.getPath().get(0).getFieldName();
        String value = c instanceof InvalidFormatException f ? "'" + f.getValue() + "'" : "the value";
        throw new SpecException("model.config." + field, value + " is not a valid " + m.getTargetType().getSimpleName());
      }
      throw new SpecException("model.config", "does not fit " + type.getSimpleName() + ": " + (c == null ? e : c).getMessage());
    }
  }
}
