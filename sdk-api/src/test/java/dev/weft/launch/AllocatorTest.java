package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.error.BadInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class AllocatorTest {
  private static final String DEBIAN = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";

  private static Map<String, String> env(Map<String, String> given, String... installed) {
    return Allocator.workerEnv(given, Set.of(installed)::contains);
  }

  @Test
  void autoPreloadsAnInstalledJemallocAndKeepsGlibcWithout() {
    assertThat(env(Map.of(), DEBIAN)).containsExactly(Map.entry("LD_PRELOAD", DEBIAN), Map.entry("MALLOC_CONF", Allocator.JEMALLOC_CONF));
    assertThat(env(Map.of("MALLOC_CONF", "narenas:2"), DEBIAN)).containsOnlyKeys("LD_PRELOAD"); // the user's settings stay
    assertThat(env(Map.of(), "/usr/lib64/libjemalloc.so.2")).containsEntry("LD_PRELOAD", "/usr/lib64/libjemalloc.so.2");
    assertThat(env(Map.of())).isEmpty();
    assertThat(env(Map.of("WEFT_ALLOCATOR", "system"), DEBIAN)).isEmpty();
  }

  @Test
  void aUsersPreloadStaysFirstAndTheirOwnAllocatorWins() {
    assertThat(env(Map.of("LD_PRELOAD", "/opt/libfoo.so"), DEBIAN)).containsEntry("LD_PRELOAD", "/opt/libfoo.so:" + DEBIAN);
    assertThat(env(Map.of("LD_PRELOAD", "/usr/lib/libtcmalloc.so.4"), DEBIAN)).isEmpty();
    assertThat(env(Map.of("LD_PRELOAD", DEBIAN), DEBIAN)).isEmpty(); // the launcher's own env handed on: not twice
  }

  @Test
  void aChosenAllocatorThatIsMissingOrUnknownIsRefusedNamingTheFix() {
    assertThatThrownBy(() -> env(Map.of("WEFT_ALLOCATOR", "jemalloc"))).isInstanceOf(BadInputException.class)
        .hasMessageContaining("apt-get install libjemalloc2").hasMessageContaining("WEFT_ALLOCATOR=system");
    assertThatThrownBy(() -> env(Map.of("WEFT_ALLOCATOR", "tcmallocc"), DEBIAN)).isInstanceOf(BadInputException.class)
        .hasMessageContaining("auto, jemalloc, system");
    assertThatThrownBy(() -> env(Map.of("WEFT_ALLOCATOR", "/opt/none.so"), DEBIAN)).isInstanceOf(BadInputException.class)
        .hasMessageContaining("/opt/none.so");
    assertThat(env(Map.of("WEFT_ALLOCATOR", "/opt/mine.so"), "/opt/mine.so")).containsEntry("LD_PRELOAD", "/opt/mine.so");
  }

  /** The worker's environment really loads the library: a JVM started with it maps jemalloc and says so. */
  @Test
  void aJvmStartedWithTheWorkersEnvironmentRunsOnJemalloc() throws Exception {
    Map<String, String> env = Allocator.workerEnv();
    Assumptions.assumeTrue(env.containsKey("LD_PRELOAD") || System.getenv("CI") != null,
        "no jemalloc on this machine: workers keep glibc's malloc");
    assertThat(env).as("CI machines carry libjemalloc2 (.ci/run installs it)").containsKey("LD_PRELOAD");
    Path out = Files.createTempFile("allocator", ".txt");
    try {
      ProcessBuilder pb = new ProcessBuilder(JavaCommand.of(List.of(Probe.class.getName(), out.toString()))).inheritIO();
      pb.environment().putAll(env);
      Process p = pb.start();
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isZero();
      assertThat(Files.readString(out)).isEqualTo("jemalloc");
    } finally {
      Files.deleteIfExists(out);
    }
  }

  /** Writes the allocator its process runs with, from its mapped libraries, to its argument. */
  public static final class Probe {
    public static void main(String[] args) throws Exception {
      String maps = Files.readString(Path.of("/proc/self/maps"));
      Files.writeString(Path.of(args[0]), maps.contains("libjemalloc") ? "jemalloc" : "glibc");
    }
  }
}
