package dev.weft.launch;

import dev.weft.checkpoint.CheckpointLayout;
import dev.weft.checkpoint.CheckpointStorages;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import dev.weft.tracking.TensorBoardSink;
import java.nio.file.Path;

/**
 * Everything a run will write, checked by the launcher before any rank starts (issue 41 item 4): an unwritable
 * {@code checkpoint.dir} used to fail at the first save, after the training it was to keep. Local directories are
 * checked writable (not made: a run that never saves leaves none); an object store is opened, which checks its
 * bucket and credentials; the TensorBoard target the same way.
 */
public final class OutputsPreflight {
  private OutputsPreflight() {}

  public static void check(TrainingSpec spec, Path runDir) {
    String ckpt = spec.checkpoint().dir();
    if (CheckpointStorages.isUri(ckpt)) CheckpointStorages.openAs("checkpoint.dir", ckpt, runDir.resolve(".checkpoint-check")).close();
    else UserPaths.writableWhenMade(CheckpointLayout.rootFor(spec.checkpoint(), runDir), "checkpoint.dir");
    TensorBoardSink.dir(spec.tracking(), runDir).ifPresent(d -> UserPaths.writableWhenMade(d, "tracking.tensorboard"));
    TensorBoardSink.checkStore(spec.tracking(), runDir);
  }

  /** {@code --resume} beside a different {@code checkpoint.resume} (spec or --set): which one was meant is the user's to say. */
  public static void oneResume(String flag, String inSpec) {
    if (flag != null && !inSpec.isBlank() && !inSpec.strip().equals(flag.strip())) {
      throw new SpecException("--resume", flag + " conflicts with checkpoint.resume=" + inSpec + " (the spec or --set); give one of them");
    }
  }
}
