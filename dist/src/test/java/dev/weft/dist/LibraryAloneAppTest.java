package dev.weft.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 39: an application that depends on {@code dev.weft:weft-sdk-api} alone gets the library, not the tool. The
 * freshly built sdk-api jar and its poms are installed into a private local repository (the Maven layout, beside
 * nothing else of Weft's); third-party jars come from {@code ~/.m2} through a {@code file:} mirror, offline. The
 * application's {@code dependency:tree} names neither picocli nor DuckDB nor weft-cli, the jar holds no
 * {@code dev.weft.cli}/{@code dev.weft.bench} class, and the application prepares JSONL, trains, evaluates and exports
 * through the Java API.
 */
@Tag("slow")
class LibraryAloneAppTest {
  private static final String VERSION = System.getProperty("weft.version", "0.1.0-SNAPSHOT");
  private static final Path CHECKOUT = Path.of(System.getProperty("weft.checkout", "..")).toAbsolutePath().normalize();
  private static final Path M2 = Path.of(System.getProperty("weft.m2.repo", System.getProperty("user.home") + "/.m2/repository"));

  @TempDir Path dir;

  @Test
  void anAppOnSdkApiAloneTrainsEvaluatesExportsAndPrepares() throws Exception {
    Path jar = Path.of(System.getProperty("weft.sdk.jar", CHECKOUT.resolve("sdk-api/target/weft-sdk-api-" + VERSION + ".jar").toString()));
    assertThat(jar).as("sdk-api's jar (built before dist in the reactor)").isRegularFile();
    try (ZipFile z = new ZipFile(jar.toFile())) {
      assertThat(z.stream().map(e -> e.getName()))
          .noneMatch(n -> n.startsWith("dev/weft/cli/") || n.startsWith("dev/weft/bench/") || n.contains("dev.weft.cli."))
          .contains("dev/weft/Trainer.class", "dev/weft/worker/WorkerProcess.class");
    }
    Path repo = dir.resolve("repo");
    install(repo, "weft-parent", CHECKOUT.resolve("pom.xml"), null);
    install(repo, "weft-sdk-api", CHECKOUT.resolve("sdk-api/pom.xml"), jar);
    Path app = copyApp(dir.resolve("app"));
    Path settings = Files.writeString(dir.resolve("settings.xml"), "<settings><mirrors><mirror><id>m2</id><mirrorOf>*</mirrorOf><url>"
        + M2.toUri() + "</url></mirror></mirrors></settings>\n");

    String dep = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1:";
    Run build = run(List.of("mvn", "-B", "-o", "-Daether.offline.protocols=file", "-s", settings.toString(), "-Dmaven.repo.local=" + repo,
        "-f", app.resolve("pom.xml").toString(), dep + "tree", "compile", dep + "build-classpath", "-Dmdep.outputFile=" + app.resolve("cp.txt")),
        app, 300);
    assertThat(build.code()).as(build.out()).isZero();
    String tree = build.out().substring(build.out().indexOf("app:library-app:jar:1"));
    assertThat(tree).as(build.out()).contains("dev.weft:weft-sdk-api:jar:" + VERSION + ":compile")
        .doesNotContainIgnoringCase("picocli").doesNotContainIgnoringCase("duckdb").doesNotContain("weft-cli");

    Path work = Files.createDirectories(dir.resolve("work"));
    List<String> java = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC"));
    String cache = System.getProperty("org.bytedeco.javacpp.cachedir");
    if (cache != null) java.add("-Dorg.bytedeco.javacpp.cachedir=" + cache);
    java.addAll(List.of("-cp", app.resolve("target/classes") + ":" + Files.readString(app.resolve("cp.txt")).strip(), "app.LibraryApp",
        work.toString()));
    Run r = run(java, app, 300);
    assertThat(r.code()).as(r.out()).isZero();
    assertThat(r.out()).contains("prepared ", "trained 3 steps", "evaluated ", "exported ", "library app: ok");
    assertThat(work.resolve("shards/index.json")).isRegularFile();
    assertThat(work.resolve("run/summary.json")).isRegularFile();
    assertThat(work.resolve("hf/config.json")).isRegularFile();
  }

  /** The Maven layout of an installed artifact: its pom and (unless a pom) its jar, as {@code install} writes them. */
  private static void install(Path repo, String artifactId, Path pom, Path jar) throws IOException {
    Path d = Files.createDirectories(repo.resolve("dev/weft").resolve(artifactId).resolve(VERSION));
    Files.copy(pom, d.resolve(artifactId + "-" + VERSION + ".pom"));
    if (jar != null) Files.copy(jar, d.resolve(artifactId + "-" + VERSION + ".jar"));
  }

  /** The application's sources (test resources), its pom naming this build's version. */
  private static Path copyApp(Path to) throws Exception {
    Path from = Path.of(LibraryAloneAppTest.class.getResource("library-app").toURI());
    try (Stream<Path> all = Files.walk(from)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) Files.createDirectories(t);
        else Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Path pom = to.resolve("pom.xml");
    Files.writeString(pom, Files.readString(pom).replace("@WEFT_VERSION@", VERSION));
    return to;
  }

  private record Run(int code, String out) {}

  private Run run(List<String> cmd, Path cwd, int seconds) throws Exception {
    Path log = Files.createTempFile(dir, "out", ".log");
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("OMP_NUM_THREADS", "1");
    Process p = pb.start();
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      return new Run(-1, "timed out after " + seconds + " s: " + cmd + "\n" + Files.readString(log, StandardCharsets.UTF_8));
    }
    return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }
}
