package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.cli.WeftMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31, item 7: with checkpoints on a full disk, rank 0 said so in one line, then rank 1 (whose store
 * connection broke) printed 24 lines of libtorch frames before the launcher's line. Needs root for a 1 MiB tmpfs.
 */
class FullDiskProcessTest {
  @TempDir Path dir;

  private static boolean run(String... cmd) {
    try {
      return new ProcessBuilder(cmd).redirectErrorStream(true).start().waitFor() == 0;
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  void aFullDiskEndsTheRunWithOneLinePerRankAndNoNativeFrames() throws Exception {
    Path full = Files.createDirectories(dir.resolve("full"));
    boolean mounted = run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", full.toString());
    assumeTrue(mounted, "needs root to mount a 1 MiB tmpfs (as the network-namespace tests need root)");
    try {
      Path spec = Files.writeString(dir.resolve("s.yaml"), "name: full\nparallel: {dp: 2}\ntrain: {steps: 4, globalBatch: 4}\n"
          + "checkpoint: {every: 2, dir: " + full.resolve("ck") + "}\n");
      PrintStream oldOut = System.out, oldErr = System.err;
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      PrintStream both = new PrintStream(out, true, StandardCharsets.UTF_8);
      int code;
      try {
        System.setOut(both);
        System.setErr(both);
        code = WeftMain.commandLine().execute("train", spec.toString(), "--run-dir", dir.resolve("run").toString());
      } finally {
        System.setOut(oldOut);
        System.setErr(oldErr);
      }
      String text = out.toString(StandardCharsets.UTF_8);
      List<String> lines = text.lines().toList();
      assertThat(code).as(text).isEqualTo(1);
      assertThat(text).doesNotContain("frame #").doesNotContain("Exception raised from");
      assertThat(lines.stream().filter(l -> l.startsWith("[rank 0] weft:")).toList()).as(text).singleElement()
          .asString().contains("No space left on device");
      assertThat(lines.stream().filter(l -> l.startsWith("[rank 1]") && !l.contains("INFO") && !l.contains("[Gloo]")).count())
          .as(text).isLessThanOrEqualTo(2);
      assertThat(lines.get(lines.size() - 1)).startsWith("weft: training failed: rank 0").contains("No space left on device");
    } finally {
      run("umount", full.toString());
    }
  }
}
