package dev.weft.tokenizer.chat.jinja;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code x.name} and {@code x[key]} as Jinja2's immutable sandbox resolves them: an attribute is a method of the
 * value if it has one, else its item; an item is the item, else the attribute; nothing found is {@link Undefined}.
 * Methods that would change a value, and names starting with {@code _}, are refused when called.
 */
final class Access {
  private Access() {}

  private static final Set<String> DICT_UNSAFE = Set.of("clear", "pop", "popitem", "setdefault", "update");
  private static final Set<String> LIST_UNSAFE = Set.of("append", "clear", "extend", "insert", "pop", "remove", "reverse", "sort");

  static Object attr(Budget budget, Object target, String name) { return attr(budget, target, name, true); }

  /** {@code target.name}; {@code items} false for the {@code attr} filter, which reads attributes only, never keys. */
  static Object attr(Budget budget, Object target, String name, boolean items) {
    if (target instanceof Undefined u) throw u.error();
    if (target instanceof Namespace ns) {
      Object v = ns.values().get(name);
      return v != null || ns.values().containsKey(name) ? v : missingAttr(target, name);
    }
    if (target instanceof Loop loop) return loop.attr(name);
    if (target instanceof Tuple t && t.hasField(name)) return t.field(name);
    Object method = method(budget, target, name);
    if (method != null) return method;
    if (items && target instanceof Map<?, ?> m) {
      Object k = Py.key(m, name);
      if (k != Py.NO_KEY) return m.get(k);
    }
    return missingAttr(target, name);
  }

  static Object item(Budget budget, Object target, Object key) {
    if (target instanceof Undefined u) throw u.error();
    if (key instanceof Undefined && !(target instanceof Map)) throw ((Undefined) key).error();
    if (target instanceof Map<?, ?> m) {
      Object k = Py.key(m, key);
      if (k != Py.NO_KEY) return m.get(k);
    } else if ((target instanceof List<?> || target instanceof String) && Py.isInt(key)) {
      long n = Py.len(target), i = Py.asLong(key);
      if (i < 0) i += n;
      if (i >= 0 && i < n) {
        if (target instanceof List<?> l) return l.get((int) i);
        String s = (String) target;
        int at = s.offsetByCodePoints(0, (int) i);
        return new String(Character.toChars(s.codePointAt(at)));
      }
      return new Undefined("'" + Py.typeName(target) + " object' has no element " + i);
    }
    if (key instanceof String name) {
      boolean own = target instanceof Namespace || target instanceof Loop || target instanceof Tuple t && t.hasField(name);
      Object a = own ? attr(budget, target, name) : method(budget, target, name);
      if (a != null) return a;
      return missingAttr(target, name);
    }
    return new Undefined("'" + objectName(target) + "' has no attribute " + Py.repr(key));
  }

  private static Undefined missingAttr(Object target, String name) {
    return new Undefined("'" + objectName(target) + "' has no attribute '" + name + "'");
  }

  private static String objectName(Object v) { return v == null ? "None" : Py.typeName(v) + " object"; }

  /** A bound method of {@code target} called {@code name}; an unsafe one raises when called; null when there is none. */
  private static Object method(Budget budget, Object target, String name) {
    if (name.startsWith("_")) return unsafe(target, name);
    if (target instanceof String s) return Methods.string(budget, s, name);
    if (target instanceof Map<?, ?> m) {
      if (DICT_UNSAFE.contains(name)) return unsafe(target, name);
      return Methods.dict(m, name);
    }
    if (target instanceof List<?> l) {
      if (LIST_UNSAFE.contains(name)) return unsafe(target, name);
      return Methods.list(l, name);
    }
    return null;
  }

  /** Jinja2's sandbox: an unsafe attribute is an undefined that prints empty and raises when used (called). */
  private static Object unsafe(Object target, String name) {
    return new Undefined("access to attribute '" + name + "' of '" + Py.typeName(target) + "' object is unsafe (a chat template may not change its inputs)");
  }

  /** {@code target[start:stop:step]} of a list, tuple or string. */
  static Object slice(Budget budget, Object target, Object start, Object stop, Object step) {
    if (target instanceof Undefined u) throw u.error();
    long st = step == null ? 1 : index(step);
    if (st == 0) throw TemplateError.runtime("slice step cannot be zero");
    List<?> items = target instanceof String s ? Py.chars(s) : target instanceof List<?> l ? l : null;
    if (items == null) throw TemplateError.runtime("'" + Py.typeName(target) + "' object is not subscriptable");
    long n = items.size();
    long lo = start == null ? (st > 0 ? 0 : n - 1) : clamp(index(start), n, st);
    long hi = stop == null ? (st > 0 ? n : -1) : clamp(index(stop), n, st);
    List<Object> out = new ArrayList<>();
    for (long i = lo; st > 0 ? i < hi : i > hi; i += st) out.add(items.get((int) i));
    budget.charge(out.size());
    if (target instanceof String) return String.join("", out.stream().map(String.class::cast).toList());
    return target instanceof Tuple ? new Tuple(out) : Collections.unmodifiableList(out);
  }

  private static long index(Object v) {
    if (v instanceof Undefined u) throw u.error();
    if (!Py.isInt(v)) throw TemplateError.runtime("slice indices must be integers or None");
    return Py.asLong(v);
  }

  private static long clamp(long i, long n, long step) {
    if (i < 0) i += n;
    if (step > 0) return Math.max(0, Math.min(i, n));
    return Math.max(-1, Math.min(i, n - 1));
  }
}
