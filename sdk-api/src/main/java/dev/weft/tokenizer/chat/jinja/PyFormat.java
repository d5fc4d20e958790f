package dev.weft.tokenizer.chat.jinja;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Python's {@code "%s" % x} and {@code "{}".format(x)} for the simple fields templates write. */
final class PyFormat {
  private PyFormat() {}

  private static final Object NONE = new Object();

  static String percent(Budget budget, String fmt, Object args) {
    List<?> values = args instanceof Tuple t ? t : java.util.Collections.singletonList(args);
    StringBuilder b = new StringBuilder();
    int next = 0;
    for (int i = 0; i < fmt.length(); i++) {
      char c = fmt.charAt(i);
      if (c != '%') {
        b.append(c);
        continue;
      }
      int j = i + 1;
      Object named = NONE; // %(key)s takes its value from a mapping
      if (j < fmt.length() && fmt.charAt(j) == '(') {
        int close = fmt.indexOf(')', j);
        if (close < 0) throw TemplateError.runtime("incomplete format key");
        if (!(args instanceof Map<?, ?> m)) throw TemplateError.runtime("format requires a mapping");
        Object key = Py.key(m, fmt.substring(j + 1, close));
        if (key == Py.NO_KEY) throw TemplateError.runtime("KeyError: " + Py.repr(fmt.substring(j + 1, close)));
        named = m.get(key);
        j = close + 1;
      }
      int flags = j;
      while (j < fmt.length() && "-+ #0123456789.".indexOf(fmt.charAt(j)) >= 0) j++;
      if (j >= fmt.length()) throw TemplateError.runtime("incomplete format");
      String spec = fmt.substring(flags, j);
      char conv = fmt.charAt(j);
      i = j;
      if (conv == '%') {
        b.append('%');
        continue;
      }
      if (named != NONE) {
        b.append(one(spec, conv, named));
        budget.charge(b.length());
        continue;
      }
      if (next >= values.size()) throw TemplateError.runtime("not enough arguments for format string");
      b.append(one(spec, conv, values.get(next++)));
      budget.charge(b.length());
    }
    if (next < values.size() && args instanceof Tuple) throw TemplateError.runtime("not all arguments converted during string formatting");
    return b.toString();
  }

  private static String one(String spec, char conv, Object v) {
    if (conv == 'r' || conv == 'a') return field(spec.replace("#", "").replace("0", "") + "s", Py.repr(v), true);
    if (conv == 's') return field(flagsToSpec(spec, "s", true), Py.str(v), true);
    if ("diouxXeEfFgGc".indexOf(conv) < 0) throw TemplateError.runtime("unsupported format character '" + conv + "'");
    if (conv == 'c') {
      if (v instanceof String c && c.codePointCount(0, c.length()) == 1) return field(flagsToSpec(spec, "s", true), c, true);
      if (!Py.isInt(v)) throw TemplateError.runtime("%c requires int or char");
      return field(flagsToSpec(spec, "s", true), new String(Character.toChars((int) Py.asLong(v))), true);
    }
    if (!Py.isNumber(v)) {
      throw TemplateError.runtime("%" + conv + " format: a real number is required, not " + Py.typeName(v));
    }
    Object n = v;
    if ("diouxX".indexOf(conv) >= 0) {
      n = Py.isInt(v) ? Py.asBig(v) : new java.math.BigDecimal(Py.asDouble(v)).toBigInteger();
      if (conv == 'i' || conv == 'u') conv = 'd';
    }
    return spec(flagsToSpec(spec, String.valueOf(conv), false), n instanceof java.math.BigInteger ? n : Py.asDouble(v));
  }

  /** printf flags and width ({@code -+ #0}, width, precision) as a format-spec of {@code str.format}. */
  private static String flagsToSpec(String flags, String type, boolean text) {
    String align = flags.contains("-") ? "<" : text ? ">" : "";
    String sign = flags.contains("+") ? "+" : flags.contains(" ") ? " " : "";
    String alt = flags.contains("#") ? "#" : "";
    String rest = flags.replaceAll("^[-+ #0]*", "");
    boolean zero = flags.replaceAll("[1-9.].*$", "").contains("0") && !flags.contains("-") && !text;
    String precision = rest.contains(".") ? rest.substring(rest.indexOf('.')) : "";
    if (precision.equals(".")) precision = ".0";
    String width = rest.contains(".") ? rest.substring(0, rest.indexOf('.')) : rest;
    return align + sign + alt + (zero ? "0" : "") + width + precision + type;
  }

  private static String field(String spec, String text, boolean unused) { return spec(spec, text); }

  /**
   * One value under Python's format-spec mini-language ({@code [[fill]align][sign][#][0][width][,|_][.precision][type]}):
   * the types of s, d, x, X, o, b, c, e, E, f, F, g, G and %, floats rounded half to even on their exact binary value
   * as CPython rounds them.
   */
  static String spec(String spec, Object v) {
    java.util.regex.Matcher m = SPEC.matcher(spec);
    if (!m.matches()) throw TemplateError.runtime("Invalid format specifier '" + spec + "'");
    String fill = m.group(1) != null ? m.group(1) : null, align = m.group(2), sign = m.group(3) == null ? "-" : m.group(3);
    boolean alt = m.group(4) != null, zero = m.group(5) != null;
    int width = m.group(6) == null ? 0 : Integer.parseInt(m.group(6));
    String group = m.group(7);
    Integer precision = m.group(8) == null ? null : Integer.parseInt(m.group(8));
    String type = m.group(9) == null ? "" : m.group(9);
    if (width > 100_000 || (precision != null && precision > 100_000)) throw TemplateError.limit("a format width past 100000");
    if (zero && fill == null) {
      fill = "0";
      if (align == null) align = "=";
    }
    if (fill == null) fill = " ";
    String body, prefix = "";
    if (v instanceof String str && (type.isEmpty() || type.equals("s"))) {
      body = precision == null ? str : new String(str.codePoints().limit(precision).toArray(), 0, (int) Math.min(precision, str.codePointCount(0, str.length())));
      return pad(body, "", fill, align == null ? "<" : align, width);
    }
    if (v instanceof String) throw TemplateError.runtime("Unknown format code '" + type + "' for object of type 'str'");
    if (v instanceof Boolean || v instanceof Long) v = Py.asBig(v);
    if (v instanceof java.math.BigInteger i && "fFeEgG%".contains(type) && !type.isEmpty()) v = i.doubleValue();
    if (v instanceof java.math.BigInteger i) {
      if (precision != null) throw TemplateError.runtime("Precision not allowed in integer format specifier");
      boolean neg = i.signum() < 0;
      java.math.BigInteger a = i.abs();
      switch (type) {
        case "", "d", "n" -> body = a.toString();
        case "x" -> { body = a.toString(16); prefix = alt ? "0x" : ""; }
        case "X" -> { body = a.toString(16).toUpperCase(Locale.ROOT); prefix = alt ? "0X" : ""; }
        case "o" -> { body = a.toString(8); prefix = alt ? "0o" : ""; }
        case "b" -> { body = a.toString(2); prefix = alt ? "0b" : ""; }
        case "c" -> { return pad(new String(Character.toChars(i.intValue())), "", fill, align == null ? "<" : align, width); }
        default -> throw TemplateError.runtime("Unknown format code '" + type + "' for object of type 'int'");
      }
      if (group != null) body = group(body, group.charAt(0), type.equals("x") || type.equals("X") || type.equals("o") || type.equals("b") ? 4 : 3);
      return pad(body, signOf(neg, sign) + prefix, fill, align == null ? ">" : align, width);
    }
    double d = (Double) v;
    boolean neg = d < 0 || (d == 0 && Double.doubleToRawLongBits(d) < 0);
    double a = Math.abs(d);
    if (Double.isNaN(d) || Double.isInfinite(d)) body = Double.isNaN(d) ? "nan" : "inf";
    else body = switch (type) {
      case "f", "F" -> fixed(a, precision == null ? 6 : precision);
      case "%" -> fixed(a * 100, precision == null ? 6 : precision) + "%";
      case "e", "E" -> exponent(a, precision == null ? 6 : precision);
      case "g", "G" -> general(a, precision == null ? 6 : precision, alt);
      case "" -> precision == null ? Py.floatRepr(a) : general(a, precision, alt);
      default -> throw TemplateError.runtime("Unknown format code '" + type + "' for object of type 'float'");
    };
    if (type.equals("F") || type.equals("E") || type.equals("G")) body = body.toUpperCase(Locale.ROOT);
    if (group != null) {
      int dot = body.indexOf('.') >= 0 ? body.indexOf('.') : body.length();
      body = group(body.substring(0, dot), group.charAt(0), 3) + body.substring(dot);
    }
    return pad(body, signOf(neg, sign), fill, align == null ? ">" : align, width);
  }

  private static final java.util.regex.Pattern SPEC =
      java.util.regex.Pattern.compile("(?:(.)?([<>=^]))?([-+ ])?(#)?(0)?(\\d+)?([,_])?(?:\\.(\\d+))?([sdxXobcneEfFgG%])?", java.util.regex.Pattern.DOTALL);

  private static String signOf(boolean neg, String sign) { return neg ? "-" : sign.equals("-") ? "" : sign; }

  private static String pad(String body, String prefix, String fill, String align, int width) {
    int n = body.codePointCount(0, body.length()) + prefix.length();
    if (n >= width) return prefix + body;
    String f = fill.repeat(width - n);
    return switch (align) {
      case "<" -> prefix + body + f;
      case "^" -> fill.repeat((width - n) / 2) + prefix + body + fill.repeat(width - n - (width - n) / 2);
      case "=" -> prefix + f + body;
      default -> f + prefix + body;
    };
  }

  private static String group(String digits, char sep, int every) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < digits.length(); i++) {
      if (i > 0 && (digits.length() - i) % every == 0) b.append(sep);
      b.append(digits.charAt(i));
    }
    return b.toString();
  }

  private static String fixed(double a, int precision) {
    return new java.math.BigDecimal(a).setScale(precision, java.math.RoundingMode.HALF_EVEN).toPlainString();
  }

  private static String exponent(double a, int precision) {
    if (a == 0) return fixed(0, precision) + "e+00";
    java.math.BigDecimal r = new java.math.BigDecimal(a).round(new java.math.MathContext(precision + 1, java.math.RoundingMode.HALF_EVEN));
    int exp = r.precision() - r.scale() - 1;
    String digits = r.unscaledValue().toString();
    digits = (digits + "0".repeat(precision + 1)).substring(0, precision + 1);
    String mantissa = digits.charAt(0) + (precision > 0 ? "." + digits.substring(1) : "");
    return mantissa + "e" + (exp < 0 ? "-" : "+") + String.format(Locale.ROOT, "%02d", Math.abs(exp));
  }

  private static String general(double a, int precision, boolean alt) {
    int p = precision == 0 ? 1 : precision;
    int exp;
    if (a == 0) exp = 0;
    else {
      java.math.BigDecimal r = new java.math.BigDecimal(a).round(new java.math.MathContext(p, java.math.RoundingMode.HALF_EVEN));
      exp = r.precision() - r.scale() - 1;
    }
    String out = exp >= -4 && exp < p ? fixed(a, p - 1 - exp) : exponent(a, p - 1);
    if (alt) return out;
    int e = out.indexOf('e');
    String mant = e < 0 ? out : out.substring(0, e), tail = e < 0 ? "" : out.substring(e);
    if (mant.contains(".")) mant = mant.replaceAll("0+$", "").replaceAll("\\.$", "");
    return mant + tail;
  }

  /** {@code str.format}: {@code {}}, {@code {0}}, {@code {name}}, {@code {{}} and {@code }}}, conversions and format specs. */
  static String format(Budget budget, String fmt, List<Object> args, Map<String, Object> kwargs) {
    StringBuilder b = new StringBuilder();
    int auto = 0;
    for (int i = 0; i < fmt.length(); i++) {
      char c = fmt.charAt(i);
      if ((c == '{' || c == '}') && i + 1 < fmt.length() && fmt.charAt(i + 1) == c) {
        b.append(c);
        i++;
        continue;
      }
      if (c == '}') throw TemplateError.runtime("Single '}' encountered in format string");
      if (c != '{') {
        b.append(c);
        continue;
      }
      int end = fmt.indexOf('}', i);
      if (end < 0) throw TemplateError.runtime("Single '{' encountered in format string");
      String field = fmt.substring(i + 1, end);
      i = end;
      String conv = null, spec = null; // {field!conv:spec}
      int colon = field.indexOf(':');
      if (colon >= 0) {
        spec = field.substring(colon + 1);
        field = field.substring(0, colon);
      }
      int bang = field.indexOf('!');
      if (bang >= 0) {
        conv = field.substring(bang + 1);
        field = field.substring(0, bang);
      }
      java.util.regex.Matcher path = FIELD.matcher(field); // name, then .attr and [key] steps
      if (!path.lookingAt()) throw TemplateError.runtime("bad format field {" + field + "}");
      String first = path.group();
      Object v;
      if (first.isEmpty()) v = auto < args.size() ? args.get(auto++) : missing(field);
      else if (first.chars().allMatch(Character::isDigit)) {
        int n = Integer.parseInt(first);
        v = n < args.size() ? args.get(n) : missing(field);
      } else v = kwargs.containsKey(first) ? kwargs.get(first) : missing(field);
      java.util.regex.Matcher step = STEP.matcher(field).region(path.end(), field.length());
      int at = path.end();
      while (at < field.length()) {
        if (!step.lookingAt()) throw TemplateError.runtime("bad format field {" + field + "}");
        if (step.group(1) != null) v = Access.attr(budget, v, step.group(1));
        else v = Access.item(budget, v, step.group(2).chars().allMatch(Character::isDigit) && !step.group(2).isEmpty()
            ? (Object) Long.parseLong(step.group(2)) : step.group(2));
        if (v instanceof Undefined u) throw u.error();
        at = step.end();
        step.region(at, field.length());
      }
      Object shown = "r".equals(conv) ? Py.repr(v) : "s".equals(conv) ? Py.str(v) : v;
      b.append(spec == null ? Py.str(shown) : spec(spec, shown instanceof String || Py.isNumber(shown) ? shown : Py.str(shown)));
      budget.charge(b.length());
    }
    return b.toString();
  }

  private static final java.util.regex.Pattern FIELD = java.util.regex.Pattern.compile("[^.\\[]*");
  private static final java.util.regex.Pattern STEP = java.util.regex.Pattern.compile("\\.([^.\\[]+)|\\[([^\\]]*)\\]");

  private static Object missing(String field) { throw TemplateError.runtime("str.format has no value for the field {" + field + "}"); }
}
