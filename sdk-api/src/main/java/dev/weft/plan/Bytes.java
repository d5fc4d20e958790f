package dev.weft.plan;

import java.util.Locale;

/** Byte counts for people: B, KiB, MiB, GiB, TiB, PiB. */
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
}
