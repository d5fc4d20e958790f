package dev.weft.tokenizer.chat.jinja;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Jinja2's builtin filters that chat templates use, with transformers' {@code tojson}; none changes its input
 * ({@link Grouping} and {@link Wrapping} hold the longer ones).
 */
final class Filters {
  private Filters() {}

  private static final Set<String> NAMES = Set.of("abs", "attr", "capitalize", "center", "count", "default", "d",
      "dictsort", "e", "escape", "first", "float", "format", "indent", "int", "items", "join", "last", "length", "list",
      "lower", "map", "max", "min", "reject", "rejectattr", "replace", "reverse", "round", "safe", "select",
      "selectattr", "sort", "string", "sum", "title", "tojson", "trim", "unique", "upper", "wordcount", "forceescape",
      "groupby", "batch", "slice", "truncate", "wordwrap");
  private static final Pattern WORD_BEGINNING = Pattern.compile("([-\\s({\\[<]+)");

  static boolean has(String name) { return NAMES.contains(name); }

  static Object apply(Budget b, String name, Object v, List<Object> a, Map<String, Object> k) {
    return switch (name) {
      case "abs" -> Py.isInt(v) ? Py.norm(Py.asBig(v).abs()) : (Object) Math.abs(Py.asDouble(number(v)));
      case "attr" -> Access.attr(b, v, Py.str(Fn.arg(a, k, 0, "name", "")), false);
      case "capitalize" -> Methods.capitalize(text(v));
      case "center" -> Methods.string(b, text(v), "center").call(List.of(Fn.arg(a, k, 0, "width", 80L)), Map.of());
      case "count", "length" -> Py.len(v);
      case "default", "d" -> {
        boolean bool = Py.truthy(Fn.arg(a, k, 1, "boolean", false));
        yield v instanceof Undefined || (bool && !Py.truthy(v)) ? Fn.arg(a, k, 0, "default_value", "") : v;
      }
      case "dictsort" -> dictsort(v, a, k);
      case "e", "escape", "forceescape" -> escape(Py.str(v));
      case "first" -> {
        List<?> l = Py.iterate(v);
        yield l.isEmpty() ? new Undefined("No first item, sequence was empty.") : l.get(0);
      }
      case "last" -> {
        List<?> l = Py.iterate(v);
        yield l.isEmpty() ? new Undefined("No last item, sequence was empty.") : l.get(l.size() - 1);
      }
      case "float" -> {
        Double f = Py.toFloat(v);
        yield f == null ? Fn.arg(a, k, 0, "default", 0.0) : f;
      }
      case "int" -> {
        Object i = Py.toInt(v);
        yield i == null ? Fn.arg(a, k, 0, "default", 0L) : i;
      }
      case "format" -> PyFormat.percent(b, text(v), a.size() == 1 ? a.get(0) : new Tuple(a));
      case "indent" -> indent(b, Py.str(v), Fn.arg(a, k, 0, "width", 4L), Py.truthy(Fn.arg(a, k, 1, "first", false)),
          Py.truthy(Fn.arg(a, k, 2, "blank", false)));
      case "items" -> {
        if (v instanceof Undefined) yield List.of();
        if (!(v instanceof Map<?, ?> m)) throw TemplateError.runtime("Can only get item pairs from a mapping.");
        yield Methods.items(m);
      }
      case "join" -> {
        List<?> items = Py.iterate(v);
        Object attribute = Fn.arg(a, k, 1, "attribute", null);
        List<Object> strs = new ArrayList<>();
        for (Object x : items) strs.add(Py.str(attribute == null ? x : path(b, x, attribute)));
        yield Methods.join(b, Py.str(Fn.arg(a, k, 0, "d", "")), strs);
      }
      case "list" -> {
        List<?> l = Py.iterate(v);
        b.charge(l.size());
        yield Collections.unmodifiableList(new ArrayList<Object>(l));
      }
      case "lower" -> Py.str(v).toLowerCase(Locale.ROOT);
      case "upper" -> Py.str(v).toUpperCase(Locale.ROOT);
      case "title" -> title(Py.str(v));
      case "map" -> map(b, v, a, k);
      case "max", "min" -> minMax(b, v, name.equals("max"), k);
      case "select", "reject" -> selectTest(b, v, a, name.equals("select"), false);
      case "selectattr", "rejectattr" -> selectTest(b, v, a, name.equals("selectattr"), true);
      case "replace" -> Methods.replace(b, Py.str(v), Py.str(Fn.arg(a, k, 0, "old", "")), Py.str(Fn.arg(a, k, 1, "new", "")),
          Fn.arg(a, k, 2, "count", null) == null ? -1 : Py.asLong(Fn.arg(a, k, 2, "count", null)));
      case "reverse" -> {
        if (v instanceof String s) yield new StringBuilder(s).reverse().toString();
        List<Object> l = new ArrayList<>(Py.iterate(v));
        Collections.reverse(l);
        yield Collections.unmodifiableList(l);
      }
      case "round" -> round(v, a, k);
      case "safe" -> v instanceof Undefined ? "" : Py.str(v);
      case "sort" -> sort(b, v, a, k);
      case "string" -> Py.str(v);
      case "sum" -> {
        Object attribute = Fn.arg(a, k, 0, "attribute", null);
        Object total = Fn.arg(a, k, 1, "start", 0L);
        for (Object x : Py.iterate(v)) total = Py.add(b, total, attribute == null ? x : path(b, x, attribute));
        yield total;
      }
      case "tojson" -> PyJson.dumps(b, v, a, k);
      case "trim" -> Methods.strip(Py.str(v), Fn.arg(a, k, 0, "chars", null) == null ? null : Py.str(Fn.arg(a, k, 0, "chars", null)), true, true);
      case "unique" -> unique(b, v, k);
      case "groupby" -> Grouping.groupby(b, v, a, k);
      case "batch" -> Grouping.batch(b, v, a, k);
      case "slice" -> Grouping.slice(b, v, a, k);
      case "truncate" -> Wrapping.truncate(v, a, k);
      case "wordwrap" -> Wrapping.wordwrap(b, v, a, k);
      case "wordcount" -> (long) Methods.split(Py.str(v), null, -1, false).size();
      default -> throw TemplateError.runtime("no filter named '" + name + "'");
    };
  }

  private static Object number(Object v) {
    if (v instanceof Undefined u) throw u.error();
    if (!Py.isNumber(v)) throw TemplateError.runtime("bad operand type: '" + Py.typeName(v) + "'");
    return v;
  }

  private static String text(Object v) { return Py.str(v); }

  static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&#34;").replace("'", "&#39;");
  }

  /** Jinja's title: each word (after a space, dash or bracket) capitalised. */
  private static String title(String s) {
    StringBuilder out = new StringBuilder();
    var m = WORD_BEGINNING.matcher(s);
    int last = 0;
    List<String> parts = new ArrayList<>();
    while (m.find()) {
      parts.add(s.substring(last, m.start()));
      parts.add(m.group());
      last = m.end();
    }
    parts.add(s.substring(last));
    for (String p : parts) {
      if (p.isEmpty()) continue;
      int first = p.offsetByCodePoints(0, 1);
      out.append(p.substring(0, first).toUpperCase(Locale.ROOT)).append(p.substring(first).toLowerCase(Locale.ROOT));
    }
    return out.toString();
  }

  private static String indent(Budget b, String s, Object width, boolean first, boolean blank) {
    String ind = width instanceof String w ? w : " ".repeat((int) Math.max(0, Py.asLong(number(width))));
    List<String> lines = Methods.splitlines(s + "\n", false);
    StringBuilder out = new StringBuilder();
    if (blank) {
      out.append(String.join("\n" + ind, lines));
    } else {
      out.append(lines.get(0));
      for (int i = 1; i < lines.size(); i++) out.append('\n').append(lines.get(i).isEmpty() ? "" : ind + lines.get(i));
    }
    if (first) out.insert(0, ind);
    b.charge(out.length());
    return out.toString();
  }

  /** An attribute path ("a.b", or an index) looked up as Jinja's attribute filters do: item first. */
  static Object path(Budget b, Object v, Object attribute) {
    if (!(attribute instanceof String s)) return Access.item(b, v, attribute);
    Object cur = v;
    for (String part : s.split("\\.")) {
      if (cur instanceof Undefined) return cur;
      Object key = part.matches("\\d+") ? (Object) Long.parseLong(part) : part;
      cur = Access.item(b, cur, key);
    }
    return cur;
  }

  private static Object map(Budget b, Object v, List<Object> a, Map<String, Object> k) {
    List<Object> out = new ArrayList<>();
    List<?> items = Py.iterate(v);
    if (a.isEmpty() && k.containsKey("attribute")) {
      Object dflt = k.get("default");
      for (Object x : items) {
        Object r = path(b, x, k.get("attribute"));
        out.add(r instanceof Undefined && k.containsKey("default") ? dflt : r);
      }
    } else {
      if (a.isEmpty()) throw TemplateError.runtime("map requires a filter argument");
      String filter = Py.str(a.get(0));
      if (!has(filter)) throw TemplateError.runtime("no filter named '" + filter + "'");
      for (Object x : items) out.add(apply(b, filter, x, a.subList(1, a.size()), k));
    }
    b.charge(out.size());
    return Collections.unmodifiableList(out);
  }

  private static Object selectTest(Budget b, Object v, List<Object> a, boolean keep, boolean byAttr) {
    int t = byAttr ? 1 : 0;
    if (byAttr && a.isEmpty()) throw TemplateError.runtime("selectattr/rejectattr need an attribute");
    String test = a.size() > t ? Py.str(a.get(t)) : null;
    if (test != null && !Tests.has(test)) throw TemplateError.runtime("no test named '" + test + "'");
    List<Object> rest = a.size() > t + 1 ? a.subList(t + 1, a.size()) : List.of();
    List<Object> out = new ArrayList<>();
    for (Object x : Py.iterate(v)) {
      b.step();
      Object subject = byAttr ? path(b, x, a.get(0)) : x;
      boolean ok = test == null ? Py.truthy(subject) : Tests.apply(b, test, subject, rest);
      if (ok == keep) out.add(x);
    }
    return Collections.unmodifiableList(out);
  }

  private static Comparator<Object> order(Budget b, Object attribute, boolean caseSensitive) {
    return (x, y) -> {
      Object p = attribute == null ? x : path(b, x, attribute), q = attribute == null ? y : path(b, y, attribute);
      if (!caseSensitive && p instanceof String s && q instanceof String t) return s.toLowerCase(Locale.ROOT).compareTo(t.toLowerCase(Locale.ROOT));
      return Py.compare(p, q, "<");
    };
  }

  private static Object sort(Budget b, Object v, List<Object> a, Map<String, Object> k) {
    List<Object> l = new ArrayList<>(Py.iterate(v));
    b.charge(l.size());
    Comparator<Object> c = order(b, Fn.arg(a, k, 2, "attribute", null), Py.truthy(Fn.arg(a, k, 1, "case_sensitive", false)));
    l.sort(Py.truthy(Fn.arg(a, k, 0, "reverse", false)) ? c.reversed() : c);
    return Collections.unmodifiableList(l);
  }

  private static Object dictsort(Object v, List<Object> a, Map<String, Object> k) {
    if (!(v instanceof Map<?, ?> m)) throw TemplateError.runtime("dictsort: can only sort a mapping");
    boolean cs = Py.truthy(Fn.arg(a, k, 0, "case_sensitive", false));
    int by = "value".equals(Fn.arg(a, k, 1, "by", "key")) ? 1 : 0;
    List<Object> pairs = new ArrayList<>(Methods.items(m));
    Comparator<Object> c = (x, y) -> {
      Object p = ((List<?>) x).get(by), q = ((List<?>) y).get(by);
      if (!cs && p instanceof String s && q instanceof String t) return s.toLowerCase(Locale.ROOT).compareTo(t.toLowerCase(Locale.ROOT));
      return Py.compare(p, q, "<");
    };
    pairs.sort(Py.truthy(Fn.arg(a, k, 2, "reverse", false)) ? c.reversed() : c);
    return Collections.unmodifiableList(pairs);
  }

  private static Object unique(Budget b, Object v, Map<String, Object> k) {
    boolean cs = Py.truthy(k.getOrDefault("case_sensitive", false));
    Object attribute = k.get("attribute");
    List<Object> out = new ArrayList<>();
    List<Object> seen = new ArrayList<>();
    for (Object x : Py.iterate(v)) {
      b.step();
      Object key = attribute == null ? x : path(b, x, attribute);
      if (!cs && key instanceof String s) key = s.toLowerCase(Locale.ROOT);
      boolean dup = false;
      for (Object s : seen) if (Py.eq(s, key)) { dup = true; break; }
      if (!dup) {
        seen.add(key);
        out.add(x);
      }
    }
    return Collections.unmodifiableList(out);
  }

  private static Object minMax(Budget b, Object v, boolean max, Map<String, Object> k) {
    List<?> l = Py.iterate(v);
    if (l.isEmpty()) return new Undefined("No aggregated item, sequence was empty.");
    Comparator<Object> c = order(b, k.get("attribute"), Py.truthy(k.getOrDefault("case_sensitive", false)));
    Object best = l.get(0);
    for (Object x : l) if (max ? c.compare(x, best) > 0 : c.compare(x, best) < 0) best = x;
    return best;
  }

  /** Jinja2's {@code round}: Python's {@code round(v, p)} (half to even on the exact value; an int stays an int), or ceil/floor of {@code v * 10**p} over {@code 10**p}. */
  private static Object round(Object v, List<Object> a, Map<String, Object> k) {
    int precision = (int) Py.asLong(Fn.arg(a, k, 0, "precision", 0L));
    String method = Py.str(Fn.arg(a, k, 1, "method", "common"));
    if (!method.equals("common") && !method.equals("ceil") && !method.equals("floor")) {
      throw TemplateError.runtime("method must be common, ceil or floor");
    }
    if (method.equals("common") && Py.isInt(number(v))) {
      if (precision >= 0) return v instanceof Boolean ? Py.asLong(v) : v;
      java.math.BigDecimal r = new java.math.BigDecimal(Py.asBig(v)).setScale(precision, java.math.RoundingMode.HALF_EVEN);
      return Py.norm(r.toBigInteger());
    }
    double d = Py.asDouble(number(v));
    if (!Double.isFinite(d)) return d;
    if (!method.equals("common")) {
      double scale = Math.pow(10, precision);
      double x = d * scale;
      return (method.equals("ceil") ? Math.ceil(x) : Math.floor(x)) / scale;
    }
    double r = new java.math.BigDecimal(d).setScale(precision, java.math.RoundingMode.HALF_EVEN).doubleValue();
    return r == 0 && (d < 0 || Double.doubleToRawLongBits(d) < 0) ? -0.0 : r;
  }
}
