package dev.weft.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkout's {@code ./weft} script, started twice at once on a tree that was never built: one builds, the other
 * waits for it and then runs (two first uses raced on the build: one failed in the C++ compiler on a file the other
 * was writing). The script is the real one; the build tool and the JVM it calls are stand-ins that record each call,
 * so the test sees how many builds ran and that both callers reached the JVM after the build was complete.
 */
class WeftScriptBuildLockTest {
  @TempDir Path dir;

  @Test
  void twoFirstUsesAtOnceBuildOnceAndBothRun() throws Exception {
    Path tree = Files.createDirectories(dir.resolve("checkout"));
    Files.copy(Path.of(System.getProperty("weft.checkout", "..")).resolve("weft"), tree.resolve("weft"));
    Files.writeString(tree.resolve("pom.xml"), "<project/>");
    Files.createDirectories(tree.resolve("samples"));
    Files.writeString(tree.resolve("samples/pom.xml"), "<project/>");
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path calls = dir.resolve("calls.log");
    // the build: slow enough that the second caller arrives while it runs; it writes the classpath file last
    tool(bin.resolve("mvn"), "echo build-start >> " + calls + "\nsleep 3\nmkdir -p samples/target\n"
        + "echo /lib.jar > samples/target/weft.classpath\necho build-end >> " + calls);
    Path jdk = Files.createDirectories(dir.resolve("jdk/bin"));
    tool(jdk.resolve("java"), "test -f " + tree.resolve("samples/target/weft.classpath") + " || exit 9\n"
        + "echo run >> " + calls + "\necho weft 0.0-test");

    List<Process> ps = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      ProcessBuilder pb = new ProcessBuilder("bash", tree.resolve("weft").toString(), "--version").redirectErrorStream(true);
      pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
      pb.environment().put("JAVA_HOME", jdk.getParent().toString());
      ps.add(pb.start());
    }
    for (Process p : ps) {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("./weft finished").isTrue();
      assertThat(p.exitValue()).as(out).isZero();
      assertThat(out).contains("weft 0.0-test");
    }
    assertThat(Files.readAllLines(calls)).containsExactly("build-start", "build-end", "run", "run");
  }

  private static void tool(Path file, String body) throws IOException {
    Files.writeString(file, "#!/usr/bin/env bash\nset -e\n" + body + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
