package dev.weft.tokenizer.chat.jinja;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Python's {@code "%s" % x} and {@code "{}".format(x)} for the simple fields templates write. */
final class PyFormat {
  private PyFormat() {}

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
      while (j < fmt.length() && "-+ #0123456789.".indexOf(fmt.charAt(j)) >= 0) j++;
      if (j >= fmt.length()) throw TemplateError.runtime("incomplete format");
      String spec = fmt.substring(i + 1, j);
      char conv = fmt.charAt(j);
      i = j;
      if (conv == '%') {
        b.append('%');
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
    return switch (conv) {
      case 's' -> String.format(Locale.ROOT, "%" + spec.replace("#", "") + "s", Py.str(v));
      case 'r' -> String.format(Locale.ROOT, "%" + spec + "s", Py.repr(v));
      case 'd', 'i' -> {
        if (!Py.isNumber(v)) throw TemplateError.runtime("%d format: a real number is required, not " + Py.typeName(v));
        yield String.format(Locale.ROOT, "%" + spec + "d", Py.isInt(v) ? Py.asLong(v) : (long) Py.asDouble(v));
      }
      case 'f', 'F', 'e', 'E', 'g', 'G' -> {
        if (!Py.isNumber(v)) throw TemplateError.runtime("must be real number, not " + Py.typeName(v));
        yield String.format(Locale.ROOT, "%" + (spec.contains(".") ? spec : spec + ".6") + conv, Py.asDouble(v));
      }
      default -> throw TemplateError.runtime("unsupported format character '" + conv + "'");
    };
  }

  /** {@code str.format}: {@code {}}, {@code {0}}, {@code {name}}, {@code {{}} and {@code }}}; no format specs beyond none. */
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
      String conv = null;
      int bang = field.indexOf('!');
      if (bang >= 0) {
        conv = field.substring(bang + 1);
        field = field.substring(0, bang);
      }
      if (field.contains(":")) throw TemplateError.runtime("format specs in str.format are not supported by Weft's template engine");
      Object v;
      if (field.isEmpty()) v = auto < args.size() ? args.get(auto++) : missing(field);
      else if (field.chars().allMatch(Character::isDigit)) {
        int n = Integer.parseInt(field);
        v = n < args.size() ? args.get(n) : missing(field);
      } else v = kwargs.containsKey(field) ? kwargs.get(field) : missing(field);
      b.append("r".equals(conv) ? Py.repr(v) : Py.str(v));
      budget.charge(b.length());
    }
    return b.toString();
  }

  private static Object missing(String field) { throw TemplateError.runtime("str.format has no value for the field {" + field + "}"); }
}
