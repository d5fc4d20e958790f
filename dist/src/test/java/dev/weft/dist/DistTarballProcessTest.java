package dev.weft.dist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.metrics.MetricsJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution as a user gets it: weft-VERSION.tar.gz unpacked into an empty directory and run with
 * nothing but a JRE. HOME is an empty directory, PATH holds only the three tools bin/weft calls (no Maven,
 * no ~/.m2), and afterwards nothing but the run directory, the native cache and the temp dir was written.
 */
@Tag("slow")
class DistTarballProcessTest {
  private static final String VERSION = System.getProperty("weft.version", "");
  @TempDir Path dir;
  Path weftHome;
  Path home;
  Path cache;
  Path tmp;
  Path work;
  Path tools;

  @BeforeEach
  void unpack() throws Exception {
    Path tarball = Path.of(System.getProperty("weft.dist.tarball", "missing"));
    assertThat(tarball).as("the tarball `mvn package` builds").exists();
    Path unpacked = Files.createDirectories(dir.resolve("unpacked"));
    assertThat(run(List.of("tar", "-xzf", tarball.toString(), "-C", unpacked.toString()), unpacked, Map.of(), 120).code).isZero();
    weftHome = unpacked.resolve("weft-" + VERSION);
    home = Files.createDirectories(dir.resolve("home"));
    cache = dir.resolve("cache");
    tmp = Files.createDirectories(dir.resolve("tmp"));
    work = Files.createDirectories(dir.resolve("work"));
    tools = Files.createDirectories(dir.resolve("tools"));
    for (String t : List.of("dirname", "readlink", "id")) Files.createSymbolicLink(tools.resolve(t), which(t));
  }

  @Test
  void versionAndAShortTrainRunFromTheUnpackedTarball() throws Exception {
    List<String> before = tree(weftHome);
    Result v = weft(List.of("--version"));
    assertThat(v.code).as(v.out).isZero();
    assertThat(v.out).contains("weft " + VERSION).doesNotContain("development build");

    Result t = weft(List.of("train", weftHome.resolve("configs/gpt-tiny.yaml").toString(), "--run-dir", "run",
        "--set", "train.steps=3", "--set", "model.config.layers=1"));
    assertThat(t.code).as(t.out).isZero();
    var s = MetricsJson.readSummary(work.resolve("run"));
    assertThat(s.steps()).isEqualTo(3);
    assertThat(s.worldSize()).isEqualTo(2);
    assertThat(s.replicasConsistent()).as("replicas_consistent").isTrue();

    assertThat(tree(home)).as("nothing written under HOME").isEmpty();
    assertThat(tree(weftHome)).as("the unpacked distribution is unchanged").isEqualTo(before);
    assertThat(Files.list(work).map(p -> p.getFileName().toString()).toList()).as("the working dir holds only the run").containsExactly("run");
    assertThat(tree(cache)).as("libtorch extracted into WEFT_CACHE_DIR").anyMatch(p -> p.endsWith("libtorch_cpu.so"));
  }

  private Result weft(List<String> args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(weftHome.resolve("bin/weft").toString()));
    cmd.addAll(args);
    return run(cmd, work, Map.of(
        "HOME", home.toString(),
        "PATH", tools.toString(),
        "JAVA_HOME", System.getProperty("java.home"),
        "WEFT_CACHE_DIR", cache.toString(),
        "WEFT_JAVA_OPTS", "-Djava.io.tmpdir=" + tmp,
        "TMPDIR", tmp.toString(),
        "OMP_WAIT_POLICY", "PASSIVE",
        "OMP_NUM_THREADS", "1"), 600);
  }

  private record Result(int code, String out) {}

  /** Runs {@code cmd} with exactly {@code env} (nothing inherited), output captured, within {@code seconds}. */
  private Result run(List<String> cmd, Path cwd, Map<String, String> env, int seconds) throws Exception {
    Path log = Files.createTempFile(dir, "out", ".log");
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      return new Result(-1, "timed out after " + seconds + " s: " + String.join(" ", cmd) + "\n" + Files.readString(log));
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    Files.delete(log);
    return new Result(p.exitValue(), out);
  }

  private static List<String> tree(Path root) throws IOException {
    if (!Files.exists(root)) return List.of();
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> !p.equals(root)).map(p -> root.relativize(p).toString()).sorted().toList();
    }
  }

  private static Path which(String tool) {
    for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
      Path p = Path.of(d, tool);
      if (Files.isExecutable(p)) return p;
    }
    throw new IllegalStateException(tool + " not on PATH");
  }
}
