package dev.weft.tokenizer.chat.jinja;

import java.util.List;
import java.util.Map;

/**
 * The {@code tojson} filter as transformers defines it for chat templates: Python's {@code json.dumps(x,
 * ensure_ascii=False, indent=None, separators=None, sort_keys=False)}, so tool schemas render byte for byte as in
 * Python (separators {@code ", "} and {@code ": "}, or {@code ","} between items once indented).
 */
final class PyJson {
  private final boolean ascii;
  private final String indent;
  private final String itemSep;
  private final String keySep;
  private final boolean sortKeys;
  private final Budget budget;
  private final StringBuilder out = new StringBuilder();

  private PyJson(Budget budget, boolean ascii, String indent, String itemSep, String keySep, boolean sortKeys) {
    this.budget = budget;
    this.ascii = ascii;
    this.indent = indent;
    this.itemSep = itemSep;
    this.keySep = keySep;
    this.sortKeys = sortKeys;
  }

  /** {@code tojson(x, ensure_ascii, indent, separators, sort_keys)}, arguments by position or keyword. */
  static String dumps(Budget budget, Object value, List<Object> args, Map<String, Object> kwargs) {
    boolean ascii = Py.truthy(Fn.arg(args, kwargs, 0, "ensure_ascii", false));
    Object ind = Fn.arg(args, kwargs, 1, "indent", null);
    String indent = ind == null ? null : ind instanceof String s ? s : " ".repeat((int) Math.max(0, Py.asLong(ind)));
    Object seps = Fn.arg(args, kwargs, 2, "separators", null);
    String item = indent == null ? ", " : ",", key = ": ";
    if (seps instanceof List<?> l && l.size() == 2) {
      item = Py.str(l.get(0));
      key = Py.str(l.get(1));
    }
    PyJson j = new PyJson(budget, ascii, indent, item, key, Py.truthy(Fn.arg(args, kwargs, 3, "sort_keys", false)));
    j.write(value, 0);
    return j.out.toString();
  }

  private void write(Object v, int depth) {
    budget.step();
    if (depth > Limits.MAX_DEPTH) throw TemplateError.limit("tojson: a value nested deeper than " + Limits.MAX_DEPTH);
    if (v == null) out.append("null");
    else if (v instanceof Boolean b) out.append(b ? "true" : "false");
    else if (v instanceof Long || v instanceof java.math.BigInteger) out.append(v);
    else if (v instanceof Double d) out.append(Double.isNaN(d) ? "NaN" : Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity") : Py.floatRepr(d));
    else if (v instanceof String s) string(s);
    else if (v instanceof Map<?, ?> m) map(m, depth);
    else if (v instanceof List<?> l) list(l, depth);
    else throw TemplateError.runtime("Object of type " + Py.typeName(v) + " is not JSON serializable");
    if (out.length() > budget.maxChars()) budget.charge(out.length());
  }

  private void newline(int depth) {
    if (indent != null) out.append('\n').append(indent.repeat(depth));
  }

  private void list(List<?> l, int depth) {
    if (l.isEmpty()) {
      out.append("[]");
      return;
    }
    out.append('[');
    for (int i = 0; i < l.size(); i++) {
      if (i > 0) out.append(itemSep);
      newline(depth + 1);
      write(l.get(i), depth + 1);
    }
    newline(depth);
    out.append(']');
  }

  private void map(Map<?, ?> m, int depth) {
    if (m.isEmpty()) {
      out.append("{}");
      return;
    }
    List<? extends Map.Entry<?, ?>> entries = new java.util.ArrayList<>(m.entrySet());
    if (sortKeys) entries.sort((a, b) -> Py.compare(a.getKey(), b.getKey(), "<"));
    out.append('{');
    boolean first = true;
    for (Map.Entry<?, ?> e : entries) {
      if (!first) out.append(itemSep);
      first = false;
      newline(depth + 1);
      string(key(e.getKey()));
      out.append(keySep);
      write(e.getValue(), depth + 1);
    }
    newline(depth);
    out.append('}');
  }

  private static String key(Object k) {
    if (k instanceof String s) return s;
    if (k == null) return "null";
    if (k instanceof Boolean b) return b ? "true" : "false";
    if (k instanceof Long || k instanceof java.math.BigInteger) return k.toString();
    if (k instanceof Double d) return Py.floatRepr(d);
    throw TemplateError.runtime("keys must be str, int, float, bool or None, not " + Py.typeName(k));
  }

  private void string(String s) {
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
          if (c < 0x20 || (ascii && c > 0x7e)) out.append(String.format("\\u%04x", (int) c));
          else out.append(c);
        }
      }
    }
    out.append('"');
  }
}
