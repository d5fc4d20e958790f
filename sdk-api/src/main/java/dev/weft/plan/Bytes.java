package dev.weft.plan;

import java.util.Locale;

/** Byte counts for people: B, KiB, MiB, GiB, TiB, PiB; parameter counts: k, M, B. */
public final class Bytes {
  private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

  private Bytes() {}

  public static String human(double bytes) {
    int u = 0;
    while (bytes >= 1024 && u < UNITS.length - 1) {
      bytes /= 1024;
      u++;
    }
    return u == 0 ? String.format(Locale.ROOT, "%.0f B", bytes) : String.format(Locale.ROOT, "%.1f %s", bytes, UNITS[u]);
  }

  /** A parameter count as {@code weft plan} prints it. */
  public static String count(double n) {
    if (n >= 1e9) return String.format(Locale.ROOT, "%.2f B", n / 1e9);
    if (n >= 1e6) return String.format(Locale.ROOT, "%.2f M", n / 1e6);
    if (n >= 1e3) return String.format(Locale.ROOT, "%.1f k", n / 1e3);
    return String.format(Locale.ROOT, "%.0f", n);
  }
}
