package dev.weft.tokenizer.chat;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.format.TextStyle;
import java.util.Locale;

/** Values as Python writes them, where a chat template can see the difference. */
final class PythonValues {
  private PythonValues() {}

  /** Python's {@code repr(float)}: the shortest digits that read back the same, {@code 1e+20} past 1e16. */
  static String floatRepr(double d) {
    if (Double.isNaN(d)) return "NaN";
    if (Double.isInfinite(d)) return d > 0 ? "Infinity" : "-Infinity";
    if (d == Math.rint(d) && Math.abs(d) < 1e16) return new BigDecimal(d).toPlainString() + ".0";
    String s = Double.toString(d);
    if (!s.contains("E")) return s;
    BigDecimal b = new BigDecimal(s);
    int exp = b.precision() - b.scale() - 1;
    if (exp >= -5 && exp < 16) return b.toPlainString();
    String m = b.movePointLeft(exp).stripTrailingZeros().toPlainString();
    return m + "e" + (exp < 0 ? "-" : "+") + String.format(Locale.ROOT, "%02d", Math.abs(exp));
  }

  /** Python's {@code time.strftime} for the directives chat templates use (dates in system prompts). */
  static String strftime(String format, LocalDateTime t) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < format.length(); i++) {
      char c = format.charAt(i);
      if (c != '%' || i + 1 == format.length()) {
        out.append(c);
        continue;
      }
      char d = format.charAt(++i);
      out.append(switch (d) {
        case 'd' -> two(t.getDayOfMonth());
        case 'm' -> two(t.getMonthValue());
        case 'Y' -> String.valueOf(t.getYear());
        case 'y' -> two(t.getYear() % 100);
        case 'H' -> two(t.getHour());
        case 'M' -> two(t.getMinute());
        case 'S' -> two(t.getSecond());
        case 'b' -> t.getMonth().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
        case 'B' -> t.getMonth().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
        case 'a' -> t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
        case 'A' -> t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
        case 'j' -> String.format(Locale.ROOT, "%03d", t.getDayOfYear());
        case '%' -> "%";
        default -> throw ChatTemplateException.unsupported("strftime_now: the directive %" + d + " is not supported; use %d %m %Y %y %H %M %S %b %B %a %A %j");
      });
    }
    return out.toString();
  }

  private static String two(int v) { return String.format(Locale.ROOT, "%02d", v); }
}
