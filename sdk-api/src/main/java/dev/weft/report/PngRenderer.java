package dev.weft.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import javax.imageio.ImageIO;

/** A line {@link Chart} as a PNG, drawn with Java2D (headless; no native libraries). */
final class PngRenderer {
  static final int W = 800, H = 450, LEFT = 80, RIGHT = 24, TOP = 44, BOTTOM = 54;
  private static final Chart.Frame F = new Chart.Frame(W, H, LEFT, RIGHT, TOP, BOTTOM);

  private PngRenderer() {}

  static BufferedImage render(Chart c) {
    System.setProperty("java.awt.headless", "true");
    double[] b = c.bounds();
    BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, W, H);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
      for (double t : Chart.ticks(b[2], b[3])) {
        int y = (int) Math.round(F.py(t, b));
        g.setColor(new Color(0xE5E5E5));
        g.drawLine(LEFT, y, W - RIGHT, y);
        g.setColor(Color.DARK_GRAY);
        String l = Chart.label(t);
        g.drawString(l, LEFT - 8 - g.getFontMetrics().stringWidth(l), y + 4);
      }
      for (double t : Chart.ticks(b[0], b[1])) {
        String l = Chart.label(t);
        g.drawString(l, (int) Math.round(F.px(t, b)) - g.getFontMetrics().stringWidth(l) / 2, H - BOTTOM + 18);
      }
      g.drawString("step", (LEFT + W - RIGHT) / 2 - 12, H - 14);
      g.drawString(c.unit(), 8, TOP - 10);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
      g.drawString(c.title(), LEFT, 26);
      g.setColor(Color.GRAY);
      g.drawLine(LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM);
      g.drawLine(LEFT, TOP, LEFT, H - BOTTOM);
      g.setStroke(new BasicStroke(2f));
      var ys = c.drawn();
      for (int k = 0; k < ys.size(); k++) {
        g.setColor(Color.decode(c.series().get(k).color()));
        Path2D.Double p = new Path2D.Double();
        boolean started = false;
        for (int i = 0; i < c.x().length; i++) {
          double y = ys.get(k)[i];
          if (Double.isNaN(y) || Double.isInfinite(y)) continue;
          if (started) p.lineTo(F.px(c.x()[i], b), F.py(y, b));
          else p.moveTo(F.px(c.x()[i], b), F.py(y, b));
          started = true;
        }
        g.draw(p);
      }
    } finally {
      g.dispose();
    }
    return img;
  }

  static void write(Chart c, Path file) {
    try {
      if (!ImageIO.write(render(c), "png", file.toFile())) throw new IOException("no PNG writer in this JVM");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
