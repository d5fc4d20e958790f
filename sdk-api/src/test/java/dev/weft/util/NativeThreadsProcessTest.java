package dev.weft.util;

import dev.weft.launch.JavaCommand;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.launch.LocalLauncher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bytedeco.openblas.presets.openblas_nolapack;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link NativeThreads#configure} in a fresh JVM (the pools' settings are per process): it sets
 * OpenBLAS's pool along with libtorch's, and parks the spin-throttling OpenMP team only where the
 * user left {@code OMP_WAIT_POLICY} unset.
 */
class NativeThreadsProcessTest {
  @TempDir Path dir;

  /** The child: configure 2 then 1 thread; print what each pool then says and whether the team is parked. */
  public static void main(String[] args) {
    NativeThreads.configure(2);
    System.out.println("after2 omp=" + torch.get_num_threads() + " blas=" + openblas_nolapack.blas_get_num_threads());
    NativeThreads.configure(1);
    boolean parked = Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("weft-omp-parked-team"));
    System.out.println("after1 omp=" + torch.get_num_threads() + " blas=" + openblas_nolapack.blas_get_num_threads()
        + " parked=" + parked);
    System.exit(0);
  }

  private List<String> child(String waitPolicy) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(JavaCommand.of(List.of(NativeThreadsProcessTest.class.getName())))
        .redirectErrorStream(true).redirectOutput(dir.resolve("out.log").toFile());
    pb.environment().remove("OMP_WAIT_POLICY");
    pb.environment().remove("GOMP_SPINCOUNT");
    pb.environment().remove("OPENBLAS_NUM_THREADS");
    if (waitPolicy != null) pb.environment().put("OMP_WAIT_POLICY", waitPolicy);
    Process p = pb.start();
    try {
      assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("child finished within 3 minutes").isTrue();
    } finally {
      p.destroyForcibly();
    }
    List<String> out = Files.readAllLines(dir.resolve("out.log"));
    assertThat(p.exitValue()).as("child exit; output:\n%s", String.join("\n", out)).isZero();
    return out;
  }

  @Test
  void unsetPolicyParksTheTeamAndBothPoolsFollowTheCount() throws Exception {
    List<String> out = child(null);
    assertThat(out).contains("after2 omp=2 blas=2", "after1 omp=1 blas=1 parked=true");
  }

  @Test
  void passivePolicyParksNothing() throws Exception {
    List<String> out = child("PASSIVE");
    assertThat(out).contains("after2 omp=2 blas=2", "after1 omp=1 blas=1 parked=false");
  }
}
