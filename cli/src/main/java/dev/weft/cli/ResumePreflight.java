package dev.weft.cli;

import dev.weft.checkpoint.CheckpointException;
import dev.weft.checkpoint.CheckpointLayout;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.checkpoint.CheckpointStorages;
import dev.weft.checkpoint.LocalCheckpointStorage;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import java.nio.file.Path;

/**
 * {@code checkpoint.resume} checked by the launcher before any rank starts: when nothing it names is
 * intact, that is one line and exit 2 here, rather than one line per rank after the ranks have
 * started. Local checkpoints only (an object store would be downloaded once more just for this); the
 * ranks verify again and take the same checkpoint, since they read the same files.
 */
final class ResumePreflight {
  private ResumePreflight() {}

  static void check(TrainingSpec spec, Path runDir) {
    String resume = spec.checkpoint().resume();
    if (resume.isBlank() || CheckpointStorages.isUri(resume) || CheckpointStorages.isUri(spec.checkpoint().dir())) return;
    Path root = CheckpointLayout.rootFor(spec.checkpoint(), runDir);
    try {
      CheckpointResolver.resolveQuietly(new LocalCheckpointStorage(root), resume);
    } catch (SpecException e) {
      throw e;
    } catch (CheckpointException e) {
      throw new SpecException("checkpoint.resume", e.getMessage());
    }
  }
}
