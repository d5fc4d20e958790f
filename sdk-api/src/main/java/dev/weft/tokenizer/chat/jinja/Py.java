package dev.weft.tokenizer.chat.jinja;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Python's semantics for the values a template sees: None is {@code null}, bool {@link Boolean}, int {@link Long},
 * float {@link Double} (an int beyond 64 bits a {@link BigInteger}, as Python's ints have no bound), str {@link String}, list {@link List}, tuple {@link Tuple}, dict {@link Map}. Truth,
 * {@code str}/{@code repr}, equality, ordering, arithmetic and iteration as CPython has them.
 */
final class Py {
  private Py() {}

  /** The data given to a render, as immutable Python values (numbers normalised, no structure shared with the caller). */
  static Object adopt(Object v) {
    if (v == null || v instanceof String || v instanceof Boolean || v instanceof Long || v instanceof Double) return v;
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) return ((Number) v).longValue();
    if (v instanceof BigInteger b) return norm(b);
    if (v instanceof Number n) return n.doubleValue();
    if (v instanceof CharSequence || v instanceof Character) return v.toString();
    if (v instanceof Map<?, ?> m) {
      Map<Object, Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : m.entrySet()) out.put(adopt(e.getKey()), adopt(e.getValue()));
      return Collections.unmodifiableMap(out);
    }
    if (v instanceof Iterable<?> it) {
      List<Object> out = new ArrayList<>();
      for (Object x : it) out.add(adopt(x));
      return Collections.unmodifiableList(out);
    }
    if (v instanceof Object[] a) return adopt(List.of(a));
    return v.toString();
  }

  static boolean truthy(Object v) {
    if (v == null || v instanceof Undefined) return false;
    if (v instanceof Boolean b) return b;
    if (v instanceof Long l) return l != 0;
    if (v instanceof BigInteger b) return b.signum() != 0;
    if (v instanceof Double d) return d != 0;
    if (v instanceof String s) return !s.isEmpty();
    if (v instanceof List<?> l) return !l.isEmpty();
    if (v instanceof Map<?, ?> m) return !m.isEmpty();
    return true;
  }

  static String typeName(Object v) {
    if (v == null) return "NoneType";
    if (v instanceof Boolean) return "bool";
    if (v instanceof Long || v instanceof BigInteger) return "int";
    if (v instanceof Double) return "float";
    if (v instanceof String) return "str";
    if (v instanceof Tuple) return "tuple";
    if (v instanceof List) return "list";
    if (v instanceof Map) return "dict";
    if (v instanceof Undefined) return "Undefined";
    if (v instanceof Namespace) return "Namespace";
    return "function";
  }

  // ---- printing

  static String str(Object v) {
    if (v instanceof String s) return s;
    if (v instanceof Undefined) return "";
    return repr(v);
  }

  static String repr(Object v) {
    if (v == null) return "None";
    if (v instanceof Boolean b) return b ? "True" : "False";
    if (v instanceof Long || v instanceof BigInteger) return v.toString();
    if (v instanceof Double d) return floatRepr(d);
    if (v instanceof String s) return reprString(s);
    if (v instanceof Undefined) return "Undefined";
    if (v instanceof Range r) return r.toString();
    if (v instanceof Tuple t) {
      StringBuilder b = new StringBuilder("(");
      for (int i = 0; i < t.size(); i++) b.append(i > 0 ? ", " : "").append(repr(t.get(i)));
      return b.append(t.size() == 1 ? ",)" : ")").toString();
    }
    if (v instanceof List<?> l) {
      StringBuilder b = new StringBuilder("[");
      for (int i = 0; i < l.size(); i++) b.append(i > 0 ? ", " : "").append(repr(l.get(i)));
      return b.append(']').toString();
    }
    if (v instanceof Map<?, ?> m) {
      StringBuilder b = new StringBuilder("{");
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        b.append(first ? "" : ", ").append(repr(e.getKey())).append(": ").append(repr(e.getValue()));
        first = false;
      }
      return b.append('}').toString();
    }
    if (v instanceof Namespace n) return "<Namespace " + repr(n.values()) + ">";
    return "<function>";
  }

  /** Python's {@code repr(float)}: the shortest digits that read back the same, exponent form below 1e-4 and from 1e16. */
  static String floatRepr(double d) {
    if (Double.isNaN(d)) return "nan";
    if (Double.isInfinite(d)) return d > 0 ? "inf" : "-inf";
    if (d == 0) return (Double.doubleToRawLongBits(d) < 0 ? "-" : "") + "0.0";
    BigDecimal b = shortest(d);
    int exp = b.precision() - b.scale() - 1;
    if (exp >= -4 && exp < 16) {
      String plain = b.toPlainString();
      return plain.contains(".") ? plain : plain + ".0";
    }
    String digits = b.unscaledValue().abs().toString();
    String m = digits.substring(0, 1) + (digits.length() > 1 ? "." + digits.substring(1) : "");
    return (d < 0 ? "-" : "") + m + "e" + (exp < 0 ? "-" : "+") + String.format(Locale.ROOT, "%02d", Math.abs(exp));
  }

  /** The fewest significant digits that read back as {@code d} (CPython's repr; Java's toString is not always shortest). */
  private static BigDecimal shortest(double d) {
    BigDecimal exact = new BigDecimal(d);
    for (int digits = 1; digits < 17; digits++) {
      BigDecimal r = exact.round(new java.math.MathContext(digits, java.math.RoundingMode.HALF_EVEN));
      if (r.doubleValue() == d) return r.stripTrailingZeros();
    }
    return exact.round(new java.math.MathContext(17, java.math.RoundingMode.HALF_EVEN)).stripTrailingZeros();
  }

  static String reprString(String s) {
    char q = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
    StringBuilder b = new StringBuilder().append(q);
    s.codePoints().forEach(c -> {
      if (c == q || c == '\\') b.append('\\').appendCodePoint(c);
      else if (c == '\n') b.append("\\n");
      else if (c == '\r') b.append("\\r");
      else if (c == '\t') b.append("\\t");
      else if (printable(c)) b.appendCodePoint(c);
      else if (c < 0x100) b.append(String.format("\\x%02x", c));
      else if (c < 0x10000) b.append(String.format("\\u%04x", c));
      else b.append(String.format("\\U%08x", c));
    });
    return b.append(q).toString();
  }

  private static boolean printable(int c) {
    if (c == ' ') return true;
    return switch (Character.getType(c)) {
      case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE, Character.UNASSIGNED,
          Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR, Character.SPACE_SEPARATOR -> false;
      default -> true;
    };
  }

  // ---- equality and order

  static boolean isNumber(Object v) { return isInt(v) || v instanceof Double; }

  static boolean isInt(Object v) { return v instanceof Long || v instanceof Boolean || v instanceof BigInteger; }

  /** An int as Python holds it: a {@link Long} where it fits, else the {@link BigInteger}. */
  static Object norm(BigInteger b) { return b.bitLength() < 64 ? (Object) b.longValue() : b; }

  static BigInteger asBig(Object v) { return v instanceof BigInteger b ? b : BigInteger.valueOf(asLong(v)); }

  private static boolean big(Object a, Object b) { return a instanceof BigInteger || b instanceof BigInteger; }

  static long asLong(Object v) { return v instanceof Boolean b ? (b ? 1 : 0) : ((Number) v).longValue(); }

  static double asDouble(Object v) { return v instanceof Boolean b ? (b ? 1 : 0) : ((Number) v).doubleValue(); }

  static boolean eq(Object a, Object b) {
    if (a == b) return true;
    if (a == null || b == null) return false;
    if (isNumber(a) && isNumber(b)) {
      if (isInt(a) && isInt(b)) return big(a, b) ? asBig(a).equals(asBig(b)) : asLong(a) == asLong(b);
      return asDouble(a) == asDouble(b);
    }
    if (a instanceof Undefined || b instanceof Undefined) return a instanceof Undefined && b instanceof Undefined;
    if (a instanceof List<?> x && b instanceof List<?> y) {
      if ((a instanceof Tuple) != (b instanceof Tuple) || x.size() != y.size()) return false;
      for (int i = 0; i < x.size(); i++) if (!eq(x.get(i), y.get(i))) return false;
      return true;
    }
    if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
      if (x.size() != y.size()) return false;
      for (Map.Entry<?, ?> e : x.entrySet()) {
        Object k = key(y, e.getKey());
        if (k == NO_KEY || !eq(e.getValue(), y.get(k))) return false;
      }
      return true;
    }
    return a.equals(b);
  }

  static final Object NO_KEY = new Object();

  /** The key of {@code m} equal (as Python compares) to {@code k}, or {@link #NO_KEY}. */
  static Object key(Map<?, ?> m, Object k) {
    if (k instanceof Undefined) return NO_KEY;
    if (m.containsKey(k)) return k;
    if (isNumber(k) || k instanceof List) for (Object x : m.keySet()) if (eq(x, k)) return x;
    return NO_KEY;
  }

  static int compare(Object a, Object b, String op) {
    if (a instanceof Undefined u) throw u.error();
    if (b instanceof Undefined u) throw u.error();
    if (isNumber(a) && isNumber(b)) {
      if (isInt(a) && isInt(b)) return big(a, b) ? asBig(a).compareTo(asBig(b)) : Long.compare(asLong(a), asLong(b));
      return Double.compare(asDouble(a), asDouble(b));
    }
    if (a instanceof String x && b instanceof String y) return x.compareTo(y);
    if (a instanceof List<?> x && b instanceof List<?> y && (a instanceof Tuple) == (b instanceof Tuple)) {
      for (int i = 0; i < Math.min(x.size(), y.size()); i++) if (!eq(x.get(i), y.get(i))) return compare(x.get(i), y.get(i), op);
      return Integer.compare(x.size(), y.size());
    }
    throw TemplateError.runtime("'" + op + "' not supported between instances of '" + typeName(a) + "' and '" + typeName(b) + "'");
  }

  // ---- containers

  /** The items a for loop over {@code v} sees: a list's items, a dict's keys, a string's characters. */
  static List<?> iterate(Object v) {
    if (v instanceof List<?> l) return l;
    if (v instanceof Map<?, ?> m) return new ArrayList<>(m.keySet());
    if (v instanceof String s) return chars(s);
    if (v instanceof Undefined) return List.of();
    throw TemplateError.runtime("'" + typeName(v) + "' object is not iterable");
  }

  static List<String> chars(String s) {
    List<String> out = new ArrayList<>(s.length());
    s.codePoints().forEach(c -> out.add(new String(Character.toChars(c))));
    return out;
  }

  static long len(Object v) {
    if (v instanceof String s) return s.codePointCount(0, s.length());
    if (v instanceof List<?> l) return l.size();
    if (v instanceof Map<?, ?> m) return m.size();
    if (v instanceof Undefined) return 0;
    throw TemplateError.runtime("object of type '" + typeName(v) + "' has no len()");
  }

  static boolean contains(Object container, Object item) {
    if (container instanceof String s) {
      if (item instanceof Undefined u) throw u.error();
      if (!(item instanceof String i)) throw TemplateError.runtime("'in <string>' requires string as left operand, not " + typeName(item));
      return s.contains(i);
    }
    if (container instanceof Map<?, ?> m) return key(m, item) != NO_KEY;
    if (container instanceof List<?> l) {
      for (Object x : l) if (eq(x, item)) return true;
      return false;
    }
    if (container instanceof Undefined) return false;
    throw TemplateError.runtime("argument of type '" + typeName(container) + "' is not iterable");
  }

  // ---- arithmetic

  private static TemplateError unsupported(String op, Object a, Object b) {
    if (a instanceof Undefined u) return u.error();
    if (b instanceof Undefined u) return u.error();
    return TemplateError.runtime("unsupported operand type(s) for " + op + ": '" + typeName(a) + "' and '" + typeName(b) + "'");
  }

  private static long exact(java.util.function.LongSupplier f) {
    try {
      return f.getAsLong();
    } catch (ArithmeticException e) {
      throw TemplateError.limit("the chat template's integer arithmetic overflowed 64 bits");
    }
  }

  /** Python's int arithmetic: exact in 64 bits where it fits, else in {@link BigInteger} (bounded by the budget). */
  private static Object integer(Object a, Object b, java.util.function.LongBinaryOperator small,
      java.util.function.BinaryOperator<BigInteger> large) {
    if (!big(a, b)) {
      try {
        return small.applyAsLong(asLong(a), asLong(b));
      } catch (ArithmeticException e) {
        // beyond 64 bits: as Python, exactly
      }
    }
    BigInteger r = large.apply(asBig(a), asBig(b));
    if (r.bitLength() > MAX_INT_BITS) throw TemplateError.limit("the chat template's integer arithmetic passed " + MAX_INT_BITS + " bits");
    return norm(r);
  }

  /** Python's ints have no bound; a template's are held to this many bits, so one product cannot take the memory. */
  static final int MAX_INT_BITS = 65536;

  static Object add(Budget budget, Object a, Object b) {
    if (isNumber(a) && isNumber(b)) {
      return isInt(a) && isInt(b) ? integer(a, b, Math::addExact, BigInteger::add) : (Object) (asDouble(a) + asDouble(b));
    }
    if (a instanceof String x && b instanceof String y) {
      budget.charge((long) x.length() + y.length());
      return x + y;
    }
    if (a instanceof List<?> x && b instanceof List<?> y && (a instanceof Tuple) == (b instanceof Tuple)) {
      budget.charge((long) x.size() + y.size());
      List<Object> out = new ArrayList<>(x);
      out.addAll(y);
      return a instanceof Tuple ? new Tuple(out) : Collections.unmodifiableList(out);
    }
    throw unsupported("+", a, b);
  }

  static Object sub(Object a, Object b) {
    if (isNumber(a) && isNumber(b)) {
      return isInt(a) && isInt(b) ? integer(a, b, Math::subtractExact, BigInteger::subtract) : (Object) (asDouble(a) - asDouble(b));
    }
    throw unsupported("-", a, b);
  }

  static Object mul(Budget budget, Object a, Object b) {
    if (isNumber(a) && isNumber(b)) {
      return isInt(a) && isInt(b) ? integer(a, b, Math::multiplyExact, BigInteger::multiply) : (Object) (asDouble(a) * asDouble(b));
    }
    if (isInt(b) && (a instanceof String || a instanceof List)) return repeat(budget, a, asLong(b));
    if (isInt(a) && (b instanceof String || b instanceof List)) return repeat(budget, b, asLong(a));
    throw unsupported("*", a, b);
  }

  private static Object repeat(Budget budget, Object seq, long times) {
    long n = Math.max(0, times);
    if (seq instanceof String s) {
      budget.charge(exact(() -> Math.multiplyExact((long) s.length(), n)));
      return s.repeat((int) n);
    }
    List<?> l = (List<?>) seq;
    budget.charge(exact(() -> Math.multiplyExact((long) l.size(), n)));
    List<Object> out = new ArrayList<>();
    for (long i = 0; i < n; i++) out.addAll(l);
    return seq instanceof Tuple ? new Tuple(out) : Collections.unmodifiableList(out);
  }

  private static void nonZero(Object b, String what) {
    if (asDouble(b) == 0) throw TemplateError.runtime(what);
  }

  static Object div(Object a, Object b) {
    if (!isNumber(a) || !isNumber(b)) throw unsupported("/", a, b);
    nonZero(b, "division by zero");
    return asDouble(a) / asDouble(b);
  }

  static Object floordiv(Object a, Object b) {
    if (!isNumber(a) || !isNumber(b)) throw unsupported("//", a, b);
    nonZero(b, "integer division or modulo by zero");
    if (isInt(a) && isInt(b)) return integer(a, b, Py::floorDivExact, Py::floorDiv);
    return Math.floor(asDouble(a) / asDouble(b));
  }

  static Object mod(Budget budget, Object a, Object b) {
    if (a instanceof String fmt) return PyFormat.percent(budget, fmt, b);
    if (!isNumber(a) || !isNumber(b)) throw unsupported("%", a, b);
    nonZero(b, "integer division or modulo by zero");
    if (isInt(a) && isInt(b)) return integer(a, b, Math::floorMod, (x, y) -> x.subtract(floorDiv(x, y).multiply(y)));
    double x = asDouble(a), y = asDouble(b), r = x % y;
    return r != 0 && (r < 0) != (y < 0) ? r + y : r;
  }

  static Object pow(Object a, Object b) {
    if (!isNumber(a) || !isNumber(b)) throw unsupported("** or pow()", a, b);
    if (isInt(a) && isInt(b) && asLong(b) >= 0) {
      BigInteger base = asBig(a), exp = asBig(b);
      long bits = Math.max(1, base.abs().bitLength() - 1);
      if (base.abs().compareTo(BigInteger.ONE) > 0 && exp.compareTo(BigInteger.valueOf(MAX_INT_BITS / bits + 1)) > 0) {
        throw TemplateError.limit("the chat template's integer arithmetic passed " + MAX_INT_BITS + " bits");
      }
      return integer(base, exp, (x, y) -> { throw new ArithmeticException(); }, (x, y) -> x.pow(y.intValueExact()));
    }
    return Math.pow(asDouble(a), asDouble(b));
  }

  static Object neg(Object a) {
    if (a instanceof Undefined u) throw u.error();
    if (isInt(a)) return integer(0L, a, Math::subtractExact, BigInteger::subtract);
    if (a instanceof Double d) return -d;
    throw TemplateError.runtime("bad operand type for unary -: '" + typeName(a) + "'");
  }

  static Object pos(Object a) {
    if (a instanceof Undefined u) throw u.error();
    if (isInt(a)) return a instanceof BigInteger ? a : (Object) asLong(a);
    if (a instanceof Double) return a;
    throw TemplateError.runtime("bad operand type for unary +: '" + typeName(a) + "'");
  }

  /** Python's {@code int(v)} as Jinja's {@code int} filter tries it. */
  static Object toInt(Object v) {
    if (isInt(v)) return v instanceof BigInteger ? v : (Object) asLong(v);
    if (v instanceof Double d) return truncate(d);
    if (v instanceof String s) {
      String t = s.strip().replace("_", "");
      if (t.matches("[+-]?\\d{1,4300}")) return norm(new BigInteger(t.startsWith("+") ? t.substring(1) : t));
      Double f = toFloat(v);
      return f == null ? null : truncate(f);
    }
    return null;
  }

  /** Python's {@code int(float)}: toward zero, exactly, however large; None for inf and nan. */
  private static Object truncate(double d) {
    return Double.isFinite(d) ? norm(new BigDecimal(d).toBigInteger()) : null;
  }

  static Double toFloat(Object v) {
    if (isNumber(v)) return asDouble(v);
    if (v instanceof String s) {
      String t = s.strip().toLowerCase(Locale.ROOT);
      if (t.matches("[+-]?(inf|infinity)")) return t.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
      if (t.matches("[+-]?nan")) return Double.NaN;
      if (!t.matches("[+-]?(\\d[\\d_]*\\.?[\\d_]*|\\.\\d[\\d_]*)(e[+-]?\\d+)?")) return null;
      return Double.parseDouble(t.replace("_", ""));
    }
    return null;
  }

  private static long floorDivExact(long x, long y) {
    if (x == Long.MIN_VALUE && y == -1) throw new ArithmeticException();
    return Math.floorDiv(x, y);
  }

  private static BigInteger floorDiv(BigInteger x, BigInteger y) {
    BigInteger[] qr = x.divideAndRemainder(y);
    return qr[1].signum() != 0 && qr[1].signum() != y.signum() ? qr[0].subtract(BigInteger.ONE) : qr[0];
  }
}
