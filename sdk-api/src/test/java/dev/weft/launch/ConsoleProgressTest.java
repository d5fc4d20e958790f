package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.metrics.StepMetrics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ConsoleProgressTest {
  /** Katib's default StdOut metrics-collector filter. */
  static final Pattern KATIB = Pattern.compile("([\\w|-]+)\\s*=\\s*([+-]?\\d*(\\.\\d+)?([Ee][+-]?\\d+)?)");

  private static final StepMetrics M = new StepMetrics(40, 2.1045123, 2.946e-3, 0.8123, 1024, 100.1, 10234.4, 5e10);

  @Test
  void workerPrintsEveryLogEveryStepsAndTheFirstAndLast() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ConsoleProgress p = new ConsoleProgress(new PrintStream(out, true, StandardCharsets.UTF_8), 10);
    for (long s = 1; s <= 25; s++) p.onStep(new StepMetrics(s, 2, 1e-3, 1, 1, 1, 1, 1), 25);
    assertThat(out.toString(StandardCharsets.UTF_8).lines().map(l -> l.split(" ")[1]))
        .containsExactly("1/25", "10/25", "20/25", "25/25");
  }

  @Test
  void stepLinesAreKatibReadableNameValuePairs() {
    String line = ConsoleProgress.line(M, 200, 40);
    assertThat(line).startsWith("step 40/200  loss=2.104512 lr=2.946e-03 grad_norm=0.8123 tokens_per_s=10234 step_ms=100.1 eta_s=160");
    Map<String, Double> katib = new LinkedHashMap<>();
    Matcher m = KATIB.matcher("[rank 0] " + line);
    while (m.find()) katib.put(m.group(1), Double.parseDouble(m.group(2)));
    assertThat(katib).containsOnlyKeys("loss", "lr", "grad_norm", "tokens_per_s", "step_ms", "eta_s");
    assertThat(katib.get("loss")).isEqualTo(2.104512);
    assertThat(katib.get("lr")).isEqualTo(2.946e-3);
    assertThat(ConsoleProgress.metrics(line)).isEqualTo(katib);
  }

  @Test
  void offATerminalEveryLineGoesThroughUnchanged() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ConsoleProgress.View v = new ConsoleProgress.View(new PrintStream(out, true, StandardCharsets.UTF_8), false);
    String step = "[rank 0] " + ConsoleProgress.line(M, 200, 40);
    v.stream().println("[rank 1] hello");
    v.stream().println(step);
    v.finish();
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("[rank 1] hello\n" + step + "\n").doesNotContain("\r");
  }

  @Test
  void onATerminalStepLinesBecomeOneRedrawnBarAndOtherLinesPrintAboveIt() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ConsoleProgress.View v = new ConsoleProgress.View(new PrintStream(out, true, StandardCharsets.UTF_8), true);
    v.stream().println("[rank 0] " + ConsoleProgress.line(new StepMetrics(10, 3.5, 1e-3, 1, 1, 1, 20000, 1), 200, 5));
    v.stream().println("[rank 1] a log line");
    v.stream().println("[rank 0] " + ConsoleProgress.line(M, 200, 40));
    v.finish();
    String s = out.toString(StandardCharsets.UTF_8);
    assertThat(s).contains("\r[#.......................] step 10/200  loss 3.5000  20,000 tok/s  ETA 1:35")
        .contains("[rank 1] a log line\n")
        .contains("\r[####....................] step 40/200  loss 2.1045  10,234 tok/s  ETA 2:40")
        .endsWith("\n").doesNotContain("loss=");
  }
}
