package dev.weft.tokenizer.chat;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.filter.Filter;
import java.util.Map;

/**
 * The {@code tojson} filter as transformers defines it for chat templates: Python's {@code json.dumps} with
 * {@code ensure_ascii=False} (separators {@code ", "} and {@code ": "}; with {@code indent}, a newline and that many
 * spaces per level and {@code ","} between items), so tool schemas render byte for byte as in Python.
 */
final class PythonJson implements Filter {
  @Override
  public String getName() { return "tojson"; }

  @Override
  public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
    return filter(var, interpreter, args, Map.of());
  }

  @Override
  public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
    Object indent = kwargs.containsKey("indent") ? kwargs.get("indent") : args.length > 0 ? args[0] : null;
    StringBuilder out = new StringBuilder();
    write(out, var, indent == null ? -1 : Integer.parseInt(indent.toString()), 0);
    return out.toString();
  }

  static String dumps(Object value, int indent) {
    StringBuilder out = new StringBuilder();
    write(out, value, indent, 0);
    return out.toString();
  }

  private static void write(StringBuilder out, Object v, int indent, int depth) {
    if (v == null) out.append("null");
    else if (v instanceof Boolean b) out.append(b ? "true" : "false");
    else if (v instanceof Double || v instanceof Float) out.append(PythonValues.floatRepr(((Number) v).doubleValue()));
    else if (v instanceof Number n) out.append(n);
    else if (v instanceof Map<?, ?> m) container(out, m.entrySet(), '{', '}', indent, depth);
    else if (v instanceof Iterable<?> it) container(out, it, '[', ']', indent, depth);
    else string(out, v.toString());
  }

  private static void container(StringBuilder out, Iterable<?> items, char open, char close, int indent, int depth) {
    out.append(open);
    boolean first = true;
    for (Object item : items) {
      out.append(first ? "" : indent < 0 ? ", " : ",");
      if (indent >= 0) out.append('\n').append(" ".repeat(indent * (depth + 1)));
      if (item instanceof Map.Entry<?, ?> e) {
        string(out, String.valueOf(e.getKey()));
        out.append(": ");
        write(out, e.getValue(), indent, depth + 1);
      } else {
        write(out, item, indent, depth + 1);
      }
      first = false;
    }
    if (indent >= 0 && !first) out.append('\n').append(" ".repeat(indent * depth));
    out.append(close);
  }

  private static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20) out.append(String.format("\\u%04x", (int) c)); else out.append(c);
        }
      }
    }
    out.append('"');
  }
}
