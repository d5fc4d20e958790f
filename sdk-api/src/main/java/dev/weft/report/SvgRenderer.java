package dev.weft.report;

import java.util.List;
import java.util.Locale;

/** A {@link Chart} as inline SVG (no scripts, no external references). */
final class SvgRenderer {
  static final int W = 560, H = 300, LEFT = 64, RIGHT = 16, TOP = 34, BOTTOM = 40;
  private static final Chart.Frame F = new Chart.Frame(W, H, LEFT, RIGHT, TOP, BOTTOM);

  private SvgRenderer() {}

  static String render(Chart c) {
    double[] b = c.bounds();
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"plot-%s\" class=\"plot\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\""
            + " role=\"img\" aria-label=\"%s\">%n", c.id(), W, H, W, H, esc(c.title())));
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"20\" class=\"title\">%s</text>%n", LEFT, esc(c.title())));
    for (double t : Chart.ticks(b[2], b[3])) {
      double y = F.py(t, b);
      s.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
          + "<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>%n", LEFT, W - RIGHT, y, y, LEFT - 6, y + 4,
          Chart.label(t)));
    }
    for (double t : Chart.ticks(b[0], b[1])) {
      double x = F.px(t, b);
      s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>%n", x,
          H - BOTTOM + 16, Chart.label(t)));
    }
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">step</text>%n",
        (LEFT + W - RIGHT) / 2, H - 6));
    s.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%d\" class=\"axis\" text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">%s</text>%n",
        (TOP + H - BOTTOM) / 2, (TOP + H - BOTTOM) / 2, esc(c.unit())));
    List<double[]> ys = c.drawn();
    for (int k = ys.size() - 1; k >= 0; k--) {
      Chart.Series ser = c.series().get(k);
      String pts = points(c.x(), ys.get(k), b);
      if (c.stacked()) {
        String base = k == 0 ? String.format(Locale.ROOT, "%.1f,%.1f %.1f,%.1f", F.px(c.x()[c.x().length - 1], b), F.py(0, b),
            F.px(c.x()[0], b), F.py(0, b)) : reversed(c.x(), ys.get(k - 1), b);
        s.append(String.format("<polygon points=\"%s %s\" fill=\"%s\" fill-opacity=\"0.75\" class=\"series\" data-name=\"%s\"/>%n",
            pts, base, ser.color(), esc(ser.name())));
      } else {
        s.append(String.format("<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" class=\"series\" data-name=\"%s\"/>%n",
            pts, ser.color(), esc(ser.name())));
      }
    }
    int lx = W - RIGHT;
    for (int k = c.series().size() - 1; k >= 0 && c.series().size() > 1; k--) {
      Chart.Series ser = c.series().get(k);
      lx -= 12 + 7 * ser.name().length() + 10;
      s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"11\" width=\"10\" height=\"10\" fill=\"%s\"/>"
          + "<text x=\"%d\" y=\"20\" class=\"tick\">%s</text>%n", lx, ser.color(), lx + 13, esc(ser.name())));
    }
    return s.append("</svg>\n").toString();
  }

  private static String points(double[] x, double[] y, double[] b) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < x.length; i++) {
      if (Double.isNaN(y[i]) || Double.isInfinite(y[i])) continue;
      if (s.length() > 0) s.append(' ');
      s.append(String.format(Locale.ROOT, "%.1f,%.1f", F.px(x[i], b), F.py(y[i], b)));
    }
    return s.toString();
  }

  private static String reversed(double[] x, double[] y, double[] b) {
    StringBuilder s = new StringBuilder();
    for (int i = x.length - 1; i >= 0; i--) {
      if (s.length() > 0) s.append(' ');
      s.append(String.format(Locale.ROOT, "%.1f,%.1f", F.px(x[i], b), F.py(Double.isNaN(y[i]) ? 0 : y[i], b)));
    }
    return s.toString();
  }



  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
