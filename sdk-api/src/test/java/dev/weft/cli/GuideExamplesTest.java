package dev.weft.cli;

import dev.weft.launch.JavaCommand;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.launch.LocalLauncher;
import dev.weft.spec.SpecIO;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/guide.md's examples, as written (issue 31, item 12: its resume example had stopped working and its copy of
 * gpt-tiny.yaml had drifted from the file). Every fenced block right after a {@code <!-- runnable -->} line is run,
 * command by command, through the real {@code weft} in a separate JVM, in a directory holding a copy of the
 * repository's {@code samples/} and {@code README.md}; each must exit 0. A YAML block whose first line names a
 * sample config ({@code # samples/configs/NAME.yaml}) must be that config.
 */
class GuideExamplesTest {
  static final String MARKER = "<!-- runnable -->";
  private static final Pattern FENCE = Pattern.compile("(?m)^```[a-z]*\\n(.*?)^```", Pattern.DOTALL);
  @TempDir Path dir;

  static Path repo() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("docs/guide.md"))) return p;
    }
    throw new IllegalStateException("no docs/guide.md above " + Path.of("").toAbsolutePath());
  }

  /** The body of each fenced block that follows a line that is the marker alone. */
  static List<String> runnableBlocks(String markdown) {
    List<String> out = new ArrayList<>();
    Matcher marker = Pattern.compile("(?m)^" + Pattern.quote(MARKER) + "[ \t]*$").matcher(markdown);
    while (marker.find()) {
      Matcher m = FENCE.matcher(markdown);
      int next = marker.end() + 1;
      if (!m.find(next) || m.start() != next) throw new AssertionError(MARKER + " is not directly followed by a ``` block");
      out.add(m.group(1));
    }
    return out;
  }

  /** Shell-like: backslash-newline joins lines, '#' starts a comment, quotes group words. Only {@code ./weft ...} is allowed. */
  static List<List<String>> commands(String block) {
    List<List<String>> out = new ArrayList<>();
    for (String line : block.replace("\\\n", " ").split("\n")) {
      List<String> words = words(line);
      if (words.isEmpty()) continue;
      assertThat(words.get(0)).as("a runnable block holds only ./weft commands: %s", line).isEqualTo("./weft");
      out.add(words.subList(1, words.size()));
    }
    return out;
  }

  private static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder w = null;
    char quote = 0;
    for (char c : line.toCharArray()) {
      if (quote != 0) {
        if (c == quote) quote = 0; else w.append(c);
      } else if (c == '\'' || c == '"') {
        quote = c;
        if (w == null) w = new StringBuilder();
      } else if (c == '#' && w == null) {
        break;
      } else if (Character.isWhitespace(c)) {
        if (w != null) words.add(w.toString());
        w = null;
      } else {
        if (w == null) w = new StringBuilder();
        w.append(c);
      }
    }
    if (w != null) words.add(w.toString());
    return words;
  }

  @Test
  void everyRunnableBlockRunsAsWritten() throws Exception {
    Path root = repo();
    copyTree(root.resolve("samples/configs"), dir.resolve("samples/configs"));
    Files.copy(root.resolve("README.md"), dir.resolve("README.md"));
    List<String> blocks = runnableBlocks(Files.readString(root.resolve("docs/guide.md")));
    assertThat(blocks).isNotEmpty();
    for (String block : blocks) {
      for (List<String> args : commands(block)) {
        List<String> cmd = new ArrayList<>(List.of(WeftMain.class.getName()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(JavaCommand.of(cmd)).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] output = p.getInputStream().readAllBytes(); // ends when the command does
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("./weft %s\n%s", String.join(" ", args), new String(output, StandardCharsets.UTF_8)).isZero();
      }
    }
  }

  @Test
  void copiesOfSampleConfigsAreTheConfigs() throws Exception {
    Path root = repo();
    Matcher m = FENCE.matcher(Files.readString(root.resolve("docs/guide.md")));
    int copies = 0;
    while (m.find()) {
      String body = m.group(1);
      Matcher named = Pattern.compile("\\A# (samples/configs/[-\\w]+\\.yaml)\\n").matcher(body);
      if (!named.find()) continue;
      copies++;
      assertThat(SpecIO.parse(body)).as("docs/guide.md's copy of %s", named.group(1)).isEqualTo(SpecIO.read(root.resolve(named.group(1))));
    }
    assertThat(copies).isPositive();
  }

  @Test
  void theBlockReaderSplitsLikeAShell() {
    assertThat(commands("./weft a 'b c' \\\n    --d \"e f\"  # note\n\n./weft g\n"))
        .containsExactly(List.of("a", "b c", "--d", "e f"), List.of("g"));
    assertThat(runnableBlocks("x `" + MARKER + "`\n" + MARKER + "\n```sh\n./weft a\n```\n```\n./weft b\n```\n"))
        .containsExactly("./weft a\n");
  }

  private static void copyTree(Path from, Path to) throws Exception {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) Files.createDirectories(target); else Files.copy(f, target);
      }
    }
  }
}
