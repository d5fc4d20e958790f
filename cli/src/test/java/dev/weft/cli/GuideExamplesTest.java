package dev.weft.cli;

import dev.weft.launch.JavaCommand;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.weft.spec.SpecIO;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/guide.md's examples, as written (issue 31, item 12: its resume example had stopped working and its copy of
 * gpt-tiny.yaml had drifted from the file; issue 42: its DPO example was refused). Every fenced block follows a marker
 * line that says what it is:
 * <ul>
 *   <li>{@code <!-- runnable -->}: {@code ./weft} commands, run one by one through the real {@code weft} in a separate
 *   JVM; each must exit 0, or the code a trailing {@code # exit N} comment names;</li>
 *   <li>{@code <!-- runnable file=NAME -->}: a file (a YAML spec) written as NAME for the commands after it;</li>
 *   <li>{@code <!-- runnable java -->}: a complete Java program (imports, a class with {@code main}), compiled and run
 *   in a separate JVM on the test class path;</li>
 *   <li>{@code <!-- partial: WHY -->}: deliberately not run (a fragment, another program, sizes beyond a test),
 *   saying why; {@code <!-- output -->}: what a command prints.</li>
 * </ul>
 * They run in order in one directory holding a copy of the repository's {@code samples/configs} and
 * {@code README.md} and the files the guide's examples name ({@link GuideWorld}): a tiny random Llama at
 * {@code models/tiny-llama}, a tiny Qwen 2 with a chat tokenizer at {@code models/qwen2-tiny}, chat and preference
 * rows, token arrays. A YAML block whose first line names a sample config ({@code # samples/configs/NAME.yaml}) must
 * be that config.
 */
class GuideExamplesTest {
  static final String MARKER = "<!-- runnable -->";
  private static final Pattern ANY_MARKER = Pattern.compile("<!-- (runnable(?: file=(\\S+)| java)?|partial: .+|output) -->");
  private static final Pattern FENCE = Pattern.compile("(?m)^```[a-z]*\\n(.*?)^```", Pattern.DOTALL);
  private static final Pattern EXIT = Pattern.compile("#\\s*exit (\\d+)");
  @TempDir Path dir;

  static Path repo() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("docs/guide.md"))) return p;
    }
    throw new IllegalStateException("no docs/guide.md above " + Path.of("").toAbsolutePath());
  }

  /** A fenced block with the marker line right above it ({@code kind}: runnable, runnable file=..., partial: ..., output). */
  record Block(int line, String kind, String file, String body) {
    boolean runnable() { return kind.startsWith("runnable"); }
    boolean java() { return kind.equals("runnable java"); }
  }

  /** Every fenced block in order; one without a marker line right above it fails. */
  static List<Block> blocks(String markdown) {
    List<Block> out = new ArrayList<>();
    Matcher m = FENCE.matcher(markdown);
    while (m.find()) {
      int line = (int) markdown.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
      String before = markdown.substring(0, Math.max(0, m.start() - 1));
      String above = before.substring(before.lastIndexOf('\n') + 1);
      Matcher k = ANY_MARKER.matcher(above);
      if (!k.matches()) {
        throw new AssertionError("docs/guide.md:" + line + ": a ``` block without a marker line above it (<!-- runnable -->, "
            + "<!-- runnable file=NAME -->, <!-- runnable java -->, <!-- partial: why -->, <!-- output -->)");
      }
      out.add(new Block(line, k.group(1).startsWith("runnable file=") ? "runnable file" : k.group(1), k.group(2), m.group(1)));
    }
    return out;
  }

  /** The body of each block of shell commands (marked {@code <!-- runnable -->}). */
  static List<String> runnableBlocks(String markdown) {
    return blocks(markdown).stream().filter(b -> b.kind().equals("runnable")).map(Block::body).toList();
  }

  /** The exit code a command line expects: a trailing {@code # exit N}, else 0. */
  static int expectedExit(String line) {
    Matcher m = EXIT.matcher(line);
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
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
    GuideWorld.build(root, dir);
    List<Block> blocks = blocks(Files.readString(root.resolve("docs/guide.md")));
    assertThat(blocks.stream().filter(Block::runnable)).isNotEmpty();
    String fromEnv = System.getenv("WEFT_GUIDE_FROM"); // a debugging aid: blocks above this line of the guide are not run
    int from = fromEnv == null ? 0 : Integer.parseInt(fromEnv);
    for (Block block : blocks) {
      switch (block.kind()) {
        case "runnable" -> {
          if (block.line() < from) continue;
          for (String line : block.body().replace("\\\n", " ").split("\n")) {
            if (words(line).isEmpty()) continue;
            List<String> args = commands(line).get(0);
            List<String> cmd = new ArrayList<>(List.of(WeftMain.class.getName()));
            cmd.addAll(args);
            run(cmd, expectedExit(line), "docs/guide.md:" + block.line() + ": ./weft " + String.join(" ", args));
          }
        }
        case "runnable file" -> {
          Path target = dir.resolve(block.file());
          Files.createDirectories(target.toAbsolutePath().getParent());
          Files.writeString(target, block.body());
        }
        case "runnable java" -> {
          if (block.line() >= from) runJava(block);
        }
        default -> { }
      }
    }
  }

  /** Compiles the block (its public class, in its package) into a directory of its own and runs its main. */
  private void runJava(Block block) throws Exception {
    Matcher pkg = Pattern.compile("(?m)^package ([\\w.]+);").matcher(block.body());
    Matcher cls = Pattern.compile("(?m)^public (?:final )?class (\\w+)").matcher(block.body());
    String where = "docs/guide.md:" + block.line();
    assertThat(cls.find()).as("%s: a runnable java block is a public class with main", where).isTrue();
    String name = (pkg.find() ? pkg.group(1) + "." : "") + cls.group(1);
    Path src = dir.resolve("java-src/" + block.line() + "/" + name.replace('.', '/') + ".java");
    Path classes = dir.resolve("java-classes/" + block.line());
    Files.createDirectories(src.getParent());
    Files.createDirectories(classes);
    Files.writeString(src, block.body());
    javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
    java.io.StringWriter errors = new java.io.StringWriter();
    try (var files = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
      boolean ok = javac.getTask(errors, files, null, List.of("-d", classes.toString(), "-cp", System.getProperty("java.class.path"),
          "-proc:none"), null, files.getJavaFileObjects(src)).call();
      assertThat(ok).as("%s compiles:\n%s", where, errors).isTrue();
    }
    List<String> cmd = new ArrayList<>(JavaCommand.of(List.of(name)));
    int cp = cmd.indexOf("-cp") + 1;
    cmd.set(cp, classes + java.io.File.pathSeparator + cmd.get(cp));
    runRaw(cmd, 0, where + ": java " + name);
  }

  private void run(List<String> mainAndArgs, int exit, String what) throws Exception {
    runRaw(JavaCommand.of(mainAndArgs), exit, what);
  }

  private void runRaw(List<String> cmd, int exit, String what) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
    pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
    Process p = pb.start();
    p.getOutputStream().close();
    byte[] output = p.getInputStream().readAllBytes(); // ends when the command does
    assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("%s\n%s", what, new String(output, StandardCharsets.UTF_8)).isEqualTo(exit);
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
  void everyBlockOfTheGuideSaysWhatItIs() throws Exception {
    List<Block> blocks = blocks(Files.readString(repo().resolve("docs/guide.md"))); // throws naming an unmarked block
    assertThat(blocks.stream().filter(b -> b.java())).hasSizeGreaterThanOrEqualTo(5);
    assertThat(blocks.stream().filter(b -> b.body().contains("objective: dpo") || b.body().contains(".dpo(")))
        .as("the DPO examples run").allMatch(Block::runnable).hasSizeGreaterThanOrEqualTo(2);
  }

  @Test
  void theBlockReaderSplitsLikeAShell() {
    assertThat(commands("./weft a 'b c' \\\n    --d \"e f\"  # note\n\n./weft g\n"))
        .containsExactly(List.of("a", "b c", "--d", "e f"), List.of("g"));
    assertThat(runnableBlocks("x `" + MARKER + "`\n" + MARKER + "\n```sh\n./weft a\n```\n<!-- output -->\n```\nb\n```\n"))
        .containsExactly("./weft a\n");
    assertThat(blocks("<!-- runnable file=a/s.yaml -->\n```yaml\nx: 1\n```\n<!-- partial: why -->\n```\ny\n```\n"))
        .extracting(Block::kind, Block::file).containsExactly(tuple("runnable file", "a/s.yaml"), tuple("partial: why", null));
    assertThatThrownBy(() -> blocks("text\n```sh\n./weft a\n```\n")).hasMessageContaining("without a marker");
    assertThat(expectedExit("./weft train x.yaml --set a=1     # exit 3, diverged")).isEqualTo(3);
    assertThat(expectedExit("./weft train x.yaml")).isZero();
  }
}
