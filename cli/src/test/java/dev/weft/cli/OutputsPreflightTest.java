package dev.weft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.testing.WeftCli;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 41 item 4: what a run will write is checked before the first rank starts, and conflicting flags are refused:
 * an unwritable {@code checkpoint.dir} (it failed at the first save, after training), a TensorBoard target that
 * cannot be written, {@code --resume latest} beside another {@code checkpoint.resume} (one of the two was silently
 * preferred). Each is one line, exit 2, and no rank started (no metrics.jsonl).
 */
class OutputsPreflightTest {
  @TempDir Path dir;

  private Path spec() throws Exception {
    Path spec = dir.resolve("s.yaml");
    Files.writeString(spec, "name: t\nmodel:\n  config: {layers: 1, hidden: 32, heads: 2}\ndata: {seqLen: 16}\n"
        + "train: {steps: 2, globalBatch: 4, warmup: 1}\ncheckpoint: {every: 2}\n");
    return spec;
  }

  private WeftCli.Run train(String run, String... more) throws Exception {
    String[] args = new String[5 + more.length];
    System.arraycopy(new String[] {"train", spec().toString(), "--nproc", "1", "--run-dir=" + dir.resolve(run)}, 0, args, 0, 5);
    System.arraycopy(more, 0, args, 5, more.length);
    return WeftCli.run(args);
  }

  private void refusedBeforeAnyRank(String run, WeftCli.Run r, String... mentions) {
    WeftCli.assertOneLine(r, 2, mentions);
    assertThat(dir.resolve(run).resolve("metrics.jsonl")).doesNotExist();
  }

  @Test
  void anUnwritableCheckpointDirIsRefusedBeforeTraining() throws Exception {
    // /proc refuses every new file, to root as well (permission bits would not: these tests may run as root)
    refusedBeforeAnyRank("a", train("a", "--set", "checkpoint.dir=/proc/weft-checkpoints"), "checkpoint.dir", "/proc", "not writable");
    Path file = Files.writeString(dir.resolve("plain-file"), "x");
    refusedBeforeAnyRank("b", train("b", "--set", "checkpoint.dir=" + file.resolve("ck")), "checkpoint.dir", "is a file");
    assertThat(dir.resolve("b/checkpoints")).doesNotExist();
  }

  @Test
  void anUnwritableTensorBoardTargetIsRefusedBeforeTraining() throws Exception {
    refusedBeforeAnyRank("c", train("c", "--set", "tracking.tensorboard=/proc/weft-tb"), "tracking.tensorboard", "not writable");
  }

  @Test
  void resumeBesideAnotherCheckpointResumeIsAConflict() throws Exception {
    refusedBeforeAnyRank("d", train("d", "--resume", "latest", "--set", "checkpoint.resume=/x"), "--resume", "conflicts",
        "checkpoint.resume=/x");
  }
}
