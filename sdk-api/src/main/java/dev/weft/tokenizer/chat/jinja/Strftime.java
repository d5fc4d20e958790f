package dev.weft.tokenizer.chat.jinja;

import java.time.LocalDateTime;
import java.time.format.TextStyle;
import java.util.Locale;

/** transformers' {@code strftime_now(format)}: the local time as Python's {@code strftime} writes it. */
final class Strftime {
  private Strftime() {}

  static String format(String format, LocalDateTime t) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < format.length(); i++) {
      char c = format.charAt(i);
      if (c != '%' || i + 1 == format.length()) {
        out.append(c);
        continue;
      }
      char d = format.charAt(++i);
      boolean unpadded = d == '-' && i + 1 < format.length(); // glibc's %-d: no leading zero
      if (unpadded) d = format.charAt(++i);
      String v = switch (d) {
        case 'd' -> two(t.getDayOfMonth());
        case 'e' -> String.format(Locale.ROOT, "%2d", t.getDayOfMonth());
        case 'm' -> two(t.getMonthValue());
        case 'Y' -> String.valueOf(t.getYear());
        case 'y' -> two(t.getYear() % 100);
        case 'H' -> two(t.getHour());
        case 'I' -> two(t.getHour() % 12 == 0 ? 12 : t.getHour() % 12);
        case 'p' -> t.getHour() < 12 ? "AM" : "PM";
        case 'M' -> two(t.getMinute());
        case 'S' -> two(t.getSecond());
        case 'b', 'h' -> t.getMonth().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
        case 'B' -> t.getMonth().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
        case 'a' -> t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
        case 'A' -> t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
        case 'j' -> String.format(Locale.ROOT, "%03d", t.getDayOfYear());
        case 'F' -> t.toLocalDate().toString();
        case '%' -> "%";
        default -> throw TemplateError.runtime("strftime_now: the directive %" + d + " is not supported; use %d %e %m %Y %y %H %I %p %M %S %b %B %a %A %j %F");
      };
      out.append(unpadded && v.length() > 1 && (v.charAt(0) == '0' || v.charAt(0) == ' ') ? v.substring(1) : v);
    }
    return out.toString();
  }

  private static String two(int v) { return String.format(Locale.ROOT, "%02d", v); }
}
