package dev.weft.cli;

import dev.weft.launch.ConsoleProgress;
import dev.weft.data.prepare.Prepare;
import java.io.PrintStream;
import java.util.Locale;

/**
 * Progress of {@code weft data prepare} by input bytes: one redrawn bar on a terminal (at most ten
 * times a second), a plain line every tenth elsewhere.
 */
final class PrepareBar implements Prepare.Progress {
  private static final int BAR = 24;
  private final PrintStream out;
  private final boolean terminal;
  private final long start = System.nanoTime();
  private long lastDraw;
  private int lastTenth = -1;
  private long lastTokens = -1;
  private String drawn = "";

  PrepareBar(PrintStream out, boolean terminal) {
    this.out = out;
    this.terminal = terminal;
  }

  @Override
  public void update(long done, long total, long tokens) {
    long now = System.nanoTime();
    int tenth = total == 0 ? 10 : (int) (10 * done / total);
    // the last update is always drawn (unless already drawn as is): its tokens count is the total
    boolean last = done >= total && tokens != lastTokens;
    if (terminal ? now - lastDraw < 100_000_000L && !last : tenth == lastTenth && !last) return;
    lastDraw = now;
    lastTenth = tenth;
    lastTokens = tokens;
    String line = render(done, total, tokens, (now - start) / 1e9);
    if (terminal) {
      out.print("\r" + line + " ".repeat(Math.max(0, drawn.length() - line.length())));
      drawn = line;
    } else {
      out.println(line);
    }
    out.flush();
  }

  @Override
  public void note(String line) {
    finish();
    drawn = "";
    out.println(line);
    out.flush();
  }

  /** Ends the bar's line. */
  void finish() {
    if (terminal && !drawn.isEmpty()) out.println();
    out.flush();
  }

  static String render(long done, long total, long tokens, double elapsedS) {
    double f = total == 0 ? 1 : (double) done / total;
    int filled = (int) Math.min(BAR, Math.round(BAR * f));
    String eta = done == 0 ? "?" : ConsoleProgress.View.clock(elapsedS / f * (1 - f));
    return String.format(Locale.ROOT, "[%s%s] %3.0f%%  %s of %s  %,d tokens  ETA %s", "#".repeat(filled),
        ".".repeat(BAR - filled), 100 * f, CheckpointCommand.human(done), CheckpointCommand.human(total), tokens, eta);
  }
}
