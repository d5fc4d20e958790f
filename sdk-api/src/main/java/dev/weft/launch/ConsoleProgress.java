package dev.weft.launch;

import dev.weft.log.LogFormat;
import dev.weft.metrics.StepMetrics;
import dev.weft.train.StepListener;
import java.io.ByteArrayOutputStream;
import java.io.Console;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Progress on the console, in two halves.
 *
 * <p>The worker half (this listener, on rank 0) prints one line every {@code train.logEvery} steps
 * (and at the first and last step), readable by people and by Katib's standard-output collector:
 *
 * <pre>step 40/200  loss=2.104512 lr=2.946e-03 grad_norm=0.8123 tokens_per_s=10234 step_ms=100.1 eta_s=16</pre>
 *
 * Every metric is {@code name=value} with a plain decimal or exponent number, so Katib's default
 * regex {@code ([\w|-]+)\s*=\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?)} reads loss, lr, grad_norm,
 * tokens_per_s, step_ms and eta_s.
 *
 * <p>The launcher half ({@link View}) reads the workers' prefixed output: on a terminal it turns rank
 * 0's step lines into one redrawn progress bar (step, loss, tokens/s, ETA) and prints every other
 * line above it; elsewhere (a pipe, a file, CI, {@code TERM=dumb}) it passes every line through
 * unchanged, so the step lines stay plain lines.
 */
public final class ConsoleProgress implements StepListener {
  static final Pattern STEP_LINE = Pattern.compile("^\\[rank 0\\] step (\\d+)/(\\d+)\\s+(.*)$");
  private static final Pattern PAIR = Pattern.compile("([A-Za-z_]+)=(\\S+)");

  private final PrintStream out;
  private final long every;
  private final long start = System.nanoTime();

  public ConsoleProgress(PrintStream out, long every) {
    this.out = out;
    this.every = Math.max(1, every);
  }

  @Override
  public void onStep(StepMetrics m, long total) {
    if (m.step() != 1 && m.step() != total && m.step() % every != 0) return;
    out.println(line(m, total, (System.nanoTime() - start) / 1e9));
    out.flush();
  }

  /** The step line for {@code m}, {@code elapsedS} seconds into training. */
  public static String line(StepMetrics m, long total, double elapsedS) {
    double eta = elapsedS / m.step() * (total - m.step());
    return String.format(Locale.ROOT, "step %d/%d  loss=%.6f lr=%.3e grad_norm=%.4f tokens_per_s=%.0f step_ms=%.1f eta_s=%.0f",
        m.step(), total, m.loss(), m.lr(), m.gradNorm(), m.tokensPerS(), m.stepMs(), eta);
  }

  /** The {@code name=value} metrics of a step line. */
  public static Map<String, Double> metrics(String text) {
    Map<String, Double> out = new LinkedHashMap<>();
    Matcher pm = PAIR.matcher(text);
    while (pm.find()) {
      try {
        out.put(pm.group(1), Double.parseDouble(pm.group(2)));
      } catch (NumberFormatException ignored) {
        // not a metric
      }
    }
    return out;
  }

  /** True when {@code System.out} is an interactive terminal that understands carriage returns. */
  public static boolean onTerminal() {
    Console c = System.console();
    if (c == null || "dumb".equals(System.getenv("TERM"))) return false;
    try { // Java 22+ returns a console even when redirected; isTerminal() tells
      return (Boolean) Console.class.getMethod("isTerminal").invoke(c);
    } catch (ReflectiveOperationException e) {
      return true;
    }
  }

  /** JSON logs are for a shipper, not a person: their lines pass through even on a terminal. */
  public static View view(PrintStream console) { return new View(console, onTerminal() && !LogFormat.json()); }

  /** The launcher's console: a progress bar on a terminal, plain lines elsewhere. */
  public static final class View {
    private static final int BAR = 24;
    private final PrintStream console;
    private final boolean terminal;
    private final PrintStream stream;
    private String bar = "";

    public View(PrintStream console, boolean terminal) {
      this.console = console;
      this.terminal = terminal;
      this.stream = new PrintStream(new LineSplitter(), true, StandardCharsets.UTF_8);
    }

    /** Where the launcher writes the workers' lines. */
    public PrintStream stream() { return stream; }

    public synchronized void line(String line) {
      Matcher m = terminal ? STEP_LINE.matcher(line) : null;
      if (m != null && m.matches()) {
        draw(render(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), metrics(m.group(3))));
        return;
      }
      if (!bar.isEmpty()) console.print("\r" + " ".repeat(bar.length()) + "\r");
      console.println(line);
      if (!bar.isEmpty()) console.print(bar);
      console.flush();
    }

    private void draw(String next) {
      String pad = next.length() < bar.length() ? " ".repeat(bar.length() - next.length()) : "";
      console.print("\r" + next + pad);
      console.flush();
      bar = next;
    }

    /** Ends the bar's line (call once the workers are done). */
    public synchronized void finish() {
      stream.flush();
      if (!bar.isEmpty()) console.println();
      bar = "";
      console.flush();
    }

    public static String render(long step, long total, Map<String, Double> m) {
      int filled = total <= 0 ? 0 : (int) Math.min(BAR, BAR * step / total);
      String eta = m.containsKey("eta_s") ? clock(m.get("eta_s")) : "?";
      return String.format(Locale.ROOT, "[%s%s] step %d/%d  loss %.4f  %,.0f tok/s  ETA %s", "#".repeat(filled),
          ".".repeat(BAR - filled), step, total, m.getOrDefault("loss", Double.NaN),
          m.getOrDefault("tokens_per_s", 0.0), eta);
    }

    public static String clock(double seconds) {
      long s = Math.round(Math.max(0, seconds));
      return s >= 3600 ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
          : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }

    /** Collects bytes into lines and hands each complete line to {@link #line}. */
    private final class LineSplitter extends OutputStream {
      private final ByteArrayOutputStream buf = new ByteArrayOutputStream();

      @Override
      public synchronized void write(int b) {
        if (b == '\n') {
          String s = buf.toString(StandardCharsets.UTF_8);
          buf.reset();
          line(s.endsWith("\r") ? s.substring(0, s.length() - 1) : s);
        } else {
          buf.write(b);
        }
      }

      @Override
      public synchronized void write(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) write(b[i]);
      }
    }
  }
}
