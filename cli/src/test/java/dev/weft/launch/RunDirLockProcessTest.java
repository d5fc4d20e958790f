package dev.weft.launch;

import dev.weft.testing.StartedProcesses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.spec.SpecException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A run directory is held by the run that owns it: a second run there is refused in one line, exit 2. */
class RunDirLockProcessTest {
  @TempDir Path dir;
  @RegisterExtension final StartedProcesses started = new StartedProcesses();


  /** A separate JVM holding {@code run}'s lock; returns once it holds it. */
  private Process holder(Path runDir, String run) throws Exception {
    List<String> args = new ArrayList<>(List.of(RunDirHolder.class.getName(), runDir.toString()));
    if (run != null) args.add(run);
    Process p = new ProcessBuilder(JavaCommand.of(args)).redirectErrorStream(true).start();
    started.add(p);
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    assertThat(line).as("holder output").isEqualTo("held " + p.pid());
    return p;
  }

  @Test
  void aSecondWeftTrainIsRefusedNamingTheDirectoryAndTheOwnersPid() throws Exception {
    Path runDir = dir.resolve("run");
    Process owner = holder(runDir, null);
    Path spec = dir.resolve("s.yaml");
    Files.writeString(spec, "name: t\nparallel:\n  dp: 1\ntrain:\n  globalBatch: 4\n  steps: 2\n");
    Path err = dir.resolve("second.err");
    Process second = new ProcessBuilder(JavaCommand.of(List.of("dev.weft.cli.WeftMain", "train", spec.toString(),
        "--run-dir", runDir.toString()))).redirectError(err.toFile()).redirectOutput(dir.resolve("second.out").toFile()).start();
    started.add(second);
    assertThat(second.waitFor(240, TimeUnit.SECONDS)).as("second run ends").isTrue();
    String line = Files.readString(err).strip();
    assertThat(second.exitValue()).as(line).isEqualTo(2);
    assertThat(line.lines()).as(line).hasSize(1);
    assertThat(line).startsWith("weft: --run-dir: ").contains(runDir.toString(), "pid " + owner.pid()).doesNotContain("Exception");
    assertThat(runDir.resolve("spec.yaml")).as("the refused run wrote nothing").doesNotExist();

    owner.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    try (RunDirLock mine = RunDirLock.acquire(runDir, null, "--run-dir")) { // released with its process
      assertThat(mine.owner()).isTrue();
      assertThat(Files.readString(runDir.resolve(RunDirLock.FILE))).startsWith("pid=" + ProcessHandle.current().pid());
    }
  }

  @Test
  void agentsOfOneElasticRunShareADirectoryAndOtherRunsAreRefused() throws Exception {
    Path runDir = dir.resolve("run");
    Process owner = holder(runDir, "elastic t@127.0.0.1:29400");
    try (RunDirLock member = RunDirLock.acquire(runDir, "elastic t@127.0.0.1:29400", "--run-dir")) {
      assertThat(member.owner()).isFalse();
    }
    assertThatThrownBy(() -> RunDirLock.acquire(runDir, "elastic other@127.0.0.1:29400", "--run-dir"))
        .isInstanceOf(SpecException.class).hasMessageContaining("pid " + owner.pid());
    assertThatThrownBy(() -> RunDirLock.acquire(runDir, null, "--run-dir")).isInstanceOf(SpecException.class);
  }

  @Test
  void aRunInThisJvmHoldsItsDirectoryAgainstAnotherInTheSameJvm() {
    Path runDir = dir.resolve("run");
    try (RunDirLock first = RunDirLock.acquire(runDir, null, "runDir")) {
      assertThatThrownBy(() -> RunDirLock.acquire(runDir, null, "runDir")).isInstanceOf(SpecException.class)
          .hasMessageContaining("pid " + ProcessHandle.current().pid());
    }
    RunDirLock.acquire(runDir, null, "runDir").close();
  }
}
