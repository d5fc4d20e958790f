package dev.weft;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import org.junit.jupiter.api.Test;

/**
 * Issue 39: a notebook branches two configurations from one base and each trains what it says. The guide's JShell
 * block ("Branching two configurations from one base") runs in a real JShell (the jdk.jshell API, executing in this
 * JVM with the test class path), snippet by snippet as JShell splits it; then the session is asked what each branch
 * trained, at which learning rate its steps ran, and what the base still says.
 */
class TrainerJShellTest {
  static final String MARKER = "<!-- partial: JShell snippets (the notebook's imports above); TrainerJShellTest runs this block in JShell -->";

  @Test
  void twoTrainersBranchedFromOneBaseEachTrainWhatTheySay() throws Exception {
    try (JShell js = JShell.builder().executionEngine("local").build()) {
      js.addToClasspath(System.getProperty("java.class.path"));
      run(js, "import dev.weft.*;");
      for (String snippet : snippets(js, guideBlock())) run(js, snippet);

      assertThat(value(js, "a.summary().steps()")).as("longer ran its 6 steps").isEqualTo("6");
      assertThat(value(js, "a.losses().size()")).isEqualTo("6");
      assertThat(value(js, "b.summary().steps()")).as("hotter ran the base's 4").isEqualTo("4");
      assertThat(value(js, "a.spec().train().lr()")).isEqualTo("0.001");
      assertThat(value(js, "b.spec().train().lr()")).isEqualTo("0.003");
      assertThat(value(js, "base.toSpec().train().steps()")).as("the base is unchanged").isEqualTo("4");
      assertThat(value(js, "base.toSpec().train().lr()")).isEqualTo("0.001");
      // the learning rate each step of a branch ran at, as its own listener saw it (a listener is also a branch)
      run(js, "var seen = new java.util.ArrayList<Double>();");
      run(js, "hotter.onStep((m, total) -> seen.add(m.lr())).fit();");
      assertThat(value(js, "seen")).isEqualTo("[0.003, 0.003, 0.003, 0.003]");
      run(js, "seen.clear();");
      run(js, "base.steps(2).onStep((m, total) -> seen.add(m.lr())).fit();");
      assertThat(value(js, "seen")).as("the base trains at its own lr").isEqualTo("[0.001, 0.001]");
    }
  }

  /** The fenced block under {@link #MARKER} in docs/guide.md. */
  static String guideBlock() throws Exception {
    Path dir = Path.of("").toAbsolutePath();
    while (!Files.exists(dir.resolve("docs/guide.md"))) dir = dir.getParent();
    String guide = Files.readString(dir.resolve("docs/guide.md"));
    int at = guide.indexOf(MARKER);
    assertThat(at).as("docs/guide.md has the branching block").isNotNegative();
    int open = guide.indexOf("```\n", at) + 4;
    return guide.substring(open, guide.indexOf("\n```", open) + 1);
  }

  /** {@code source} split into the snippets JShell would run one by one. */
  static List<String> snippets(JShell js, String source) {
    List<String> out = new ArrayList<>();
    String rest = source;
    while (!rest.isBlank()) {
      SourceCodeAnalysis.CompletionInfo info = js.sourceCodeAnalysis().analyzeCompletion(rest);
      assertThat(info.completeness().isComplete()).as("a complete snippet in: %s", rest).isTrue();
      out.add(info.source());
      rest = info.remaining();
    }
    return out;
  }

  private static List<SnippetEvent> run(JShell js, String snippet) {
    List<SnippetEvent> events = js.eval(snippet);
    for (SnippetEvent e : events) {
      if (e.causeSnippet() != null) continue; // an update of an earlier snippet
      String why = e.status() == Snippet.Status.REJECTED
          ? js.diagnostics(e.snippet()).map(d -> d.getMessage(null)).collect(Collectors.joining("; ")) : "";
      assertThat(e.status()).as("%s: %s", snippet, why).isEqualTo(Snippet.Status.VALID);
      assertThat(e.exception()).as("%s throws", snippet).isNull();
    }
    return events;
  }

  private static String value(JShell js, String expression) {
    List<SnippetEvent> events = run(js, expression + ";");
    return events.get(events.size() - 1).value();
  }
}
