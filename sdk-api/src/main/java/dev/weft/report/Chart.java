package dev.weft.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A chart as data: a title, a y-axis unit, and series over the same x (steps). Stacked charts draw
 * each series on top of the previous ones. Rendered by {@link SvgRenderer} and {@link PngRenderer}.
 */
public record Chart(String id, String title, String unit, boolean stacked, double[] x, List<Series> series) {
  public record Series(String name, String color, double[] y) {}

  /** Where the plot area sits in an image of {@code w × h}: data coordinates to pixels. */
  record Frame(int w, int h, int left, int right, int top, int bottom) {
    double px(double x, double[] b) { return left + (x - b[0]) / (b[1] - b[0]) * (w - left - right); }

    double py(double y, double[] b) { return h - bottom - (y - b[2]) / (b[3] - b[2]) * (h - top - bottom); }
  }

  /** Colours used in order (Okabe-Ito, colour-blind safe). */
  static final String[] PALETTE = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9"};

  public static Chart of(String id, String title, String unit, double[] x, String name, double[] y) {
    return new Chart(id, title, unit, false, x, List.of(new Series(name, PALETTE[0], y)));
  }

  /** The y values as drawn: cumulative for stacked charts. */
  List<double[]> drawn() {
    List<double[]> out = new ArrayList<>();
    double[] acc = new double[x.length];
    for (Series s : series) {
      double[] y = new double[x.length];
      for (int i = 0; i < x.length; i++) {
        double v = i < s.y().length ? s.y()[i] : Double.NaN;
        y[i] = stacked ? (acc[i] += Double.isNaN(v) ? 0 : v) : v;
      }
      out.add(y);
    }
    return out;
  }

  /** [min, max] over x, and over the drawn y values (stacked charts start at 0). */
  double[] bounds() {
    double x0 = Double.POSITIVE_INFINITY, x1 = Double.NEGATIVE_INFINITY;
    for (double v : x) {
      x0 = Math.min(x0, v);
      x1 = Math.max(x1, v);
    }
    double y0 = stacked ? 0 : Double.POSITIVE_INFINITY, y1 = Double.NEGATIVE_INFINITY;
    for (double[] ys : drawn()) {
      for (double v : ys) {
        if (Double.isNaN(v) || Double.isInfinite(v)) continue;
        y0 = Math.min(y0, v);
        y1 = Math.max(y1, v);
      }
    }
    if (y0 > y1) { y0 = 0; y1 = 1; }
    if (y1 - y0 < 1e-12) { y0 -= Math.max(1e-9, Math.abs(y0) * 0.1); y1 += Math.max(1e-9, Math.abs(y1) * 0.1); }
    if (x0 >= x1) { x0 -= 1; x1 += 1; }
    return new double[] {x0, x1, y0, y1};
  }

  /** About five round tick values covering [lo, hi]. */
  static double[] ticks(double lo, double hi) {
    double raw = (hi - lo) / 5;
    double mag = Math.pow(10, Math.floor(Math.log10(raw)));
    double step = raw / mag >= 5 ? 10 * mag : raw / mag >= 2 ? 5 * mag : raw / mag >= 1 ? 2 * mag : mag;
    List<Double> t = new ArrayList<>();
    for (double v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) t.add(Math.abs(v) < step * 1e-9 ? 0 : v);
    return t.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** A tick label: compact, with k/M/G for large values. */
  static String label(double v) {
    double a = Math.abs(v);
    if (a >= 1e9) return trim(v / 1e9) + "G";
    if (a >= 1e6) return trim(v / 1e6) + "M";
    if (a >= 1e4) return trim(v / 1e3) + "k";
    if (a != 0 && a < 1e-2) return String.format(Locale.ROOT, "%.1e", v);
    return trim(v);
  }

  private static String trim(double v) {
    String s = String.format(Locale.ROOT, "%.3f", v);
    return s.contains(".") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
  }
}
