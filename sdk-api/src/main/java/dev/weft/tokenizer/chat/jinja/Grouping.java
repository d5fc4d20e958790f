package dev.weft.tokenizer.chat.jinja;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Jinja2's filters that cut a sequence into lists: {@code groupby}, {@code batch}, {@code slice}. */
final class Grouping {
  private Grouping() {}

  /**
   * {@code groupby(attribute, default=None, case_sensitive=False)}: the items sorted by the attribute and grouped by
   * equal values, each group a {@code (grouper, list)} tuple (grouper: the first item's own value).
   */
  static Object groupby(Budget b, Object v, List<Object> a, Map<String, Object> k) {
    Object attribute = Fn.arg(a, k, 0, "attribute", null);
    Object dflt = Fn.arg(a, k, 1, "default", null);
    boolean cs = Py.truthy(Fn.arg(a, k, 2, "case_sensitive", false));
    List<Object> items = new ArrayList<>(Py.iterate(v));
    b.charge(items.size());
    List<Object> keys = new ArrayList<>(), real = new ArrayList<>();
    for (Object x : items) {
      Object key = Filters.path(b, x, attribute);
      if (key instanceof Undefined && dflt != null) key = dflt;
      real.add(key);
      keys.add(!cs && key instanceof String s ? s.toLowerCase(Locale.ROOT) : key);
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) order.add(i);
    order.sort(Comparator.comparing(i -> keys.get(i), (p, q) -> Py.compare(p, q, "<"))); // stable, as Python's sorted
    List<Object> groups = new ArrayList<>();
    for (int i = 0; i < order.size(); ) {
      int first = order.get(i);
      List<Object> members = new ArrayList<>();
      while (i < order.size() && Py.eq(keys.get(order.get(i)), keys.get(first))) members.add(items.get(order.get(i++)));
      groups.add(new Tuple(java.util.Arrays.asList(real.get(first), Collections.unmodifiableList(members)), List.of("grouper", "list")));
    }
    return Collections.unmodifiableList(groups);
  }

  /** {@code batch(linecount, fill_with=None)}: lists of {@code linecount} items, the last filled up when asked. */
  static Object batch(Budget b, Object v, List<Object> a, Map<String, Object> k) {
    long n = Py.asLong(Fn.arg(a, k, 0, "linecount", 1L));
    if (n < 1) throw TemplateError.runtime("batch needs a linecount of at least 1");
    boolean fill = a.size() > 1 || k.containsKey("fill_with");
    Object with = Fn.arg(a, k, 1, "fill_with", null);
    List<?> items = Py.iterate(v);
    b.charge(items.size());
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < items.size(); i += (int) n) {
      List<Object> piece = new ArrayList<>(items.subList(i, (int) Math.min(items.size(), i + n)));
      while (fill && with != null && piece.size() < n) piece.add(with);
      out.add(Collections.unmodifiableList(piece));
    }
    return Collections.unmodifiableList(out);
  }

  /** {@code slice(slices, fill_with=None)}: the items in {@code slices} columns, the first ones a row longer. */
  static Object slice(Budget b, Object v, List<Object> a, Map<String, Object> k) {
    long slices = Py.asLong(Fn.arg(a, k, 0, "slices", 1L));
    if (slices < 1) throw TemplateError.runtime("slice needs at least 1 slice");
    Object with = Fn.arg(a, k, 1, "fill_with", null);
    List<?> seq = Py.iterate(v);
    b.charge(seq.size() + slices);
    int per = (int) (seq.size() / slices), extra = (int) (seq.size() % slices), offset = 0;
    List<Object> out = new ArrayList<>();
    for (int s = 0; s < slices; s++) {
      int start = offset + s * per;
      if (s < extra) offset++;
      int end = offset + (s + 1) * per;
      List<Object> piece = new ArrayList<>(seq.subList(start, end));
      if (with != null && s >= extra) piece.add(with);
      out.add(Collections.unmodifiableList(piece));
    }
    return Collections.unmodifiableList(out);
  }
}
