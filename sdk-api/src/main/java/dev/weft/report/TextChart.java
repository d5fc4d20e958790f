package dev.weft.report;

import java.util.List;
import java.util.Locale;

/** A curve as lines of text (for JShell and terminals): one column per point, min and max on the axis. */
public final class TextChart {
  private TextChart() {}

  /** {@code values} resampled to {@code width} columns and {@code height} rows of '*'. */
  public static String plot(List<Double> values, int width, int height) {
    if (values.isEmpty()) return "(no points)\n";
    int w = Math.max(2, Math.min(width, values.size()));
    double[] col = new double[w];
    for (int c = 0; c < w; c++) {
      int from = (int) ((long) c * values.size() / w), to = Math.max(from + 1, (int) ((long) (c + 1) * values.size() / w));
      double sum = 0;
      for (int i = from; i < to; i++) sum += values.get(i);
      col[c] = sum / (to - from);
    }
    double lo = Double.POSITIVE_INFINITY, hi = Double.NEGATIVE_INFINITY;
    for (double v : col) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    double span = hi - lo < 1e-12 ? 1 : hi - lo;
    StringBuilder s = new StringBuilder();
    for (int r = height - 1; r >= 0; r--) {
      String axis = r == height - 1 ? String.format(Locale.ROOT, "%9.4f", hi) : r == 0 ? String.format(Locale.ROOT, "%9.4f", lo) : " ".repeat(9);
      s.append(axis).append(" |");
      for (double v : col) s.append((int) Math.round((v - lo) / span * (height - 1)) == r ? '*' : ' ');
      s.append('\n');
    }
    s.append(" ".repeat(10)).append('+').append("-".repeat(w)).append('\n');
    s.append(String.format(Locale.ROOT, "%11s1%" + Math.max(1, w - 1) + "d  (step)%n", "", values.size()));
    return s.toString();
  }
}
