package dev.weft.checkpoint;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Rank 0's commit, once every rank's shard is written and synced: manifest into the temporary
 * directory, fsync it, rename it to {@code step-N}, fsync the root, then replace {@code latest}
 * atomically. Only after that may {@link #prune} delete checkpoints beyond {@code keep} (the caller
 * runs it off the save's critical path: deleting large files takes time). Every intermediate state
 * leaves the previous checkpoint, and the {@code latest} pointing at it, intact.
 */
final class CommitProtocol {
  private CommitProtocol() {}

  static Path commit(Path root, Path tmp, CheckpointMeta meta, List<ShardReport> reports) throws IOException {
    long step = meta.step();
    Manifest m = ManifestIO.assemble(meta, reports);
    removeStrays(tmp, m.files().keySet());
    ManifestIO.write(m, tmp.resolve(Manifest.FILE_NAME));
    FileSync.fsyncDir(tmp);
    Path target = root.resolve(CheckpointLayout.stepDirName(step));
    Path old = null;
    if (Files.exists(target)) { // saving a step again (after resuming from an earlier one): set the old copy aside
      old = root.resolve(".old-" + CheckpointLayout.stepDirName(step));
      FileSync.deleteTree(old);
      FileSync.rename(target, old);
    }
    FileSync.rename(tmp, target);
    FileSync.fsyncDir(root);
    FileSync.writeAtomically(root.resolve(CheckpointLayout.LATEST), target.getFileName() + "\n");
    if (old != null) FileSync.deleteTree(old);
    return target;
  }

  /** Files a crashed earlier attempt at this step left in the temporary directory. */
  private static void removeStrays(Path tmp, Set<String> keepNames) throws IOException {
    try (Stream<Path> s = Files.list(tmp)) {
      for (Path p : s.toList()) if (!keepNames.contains(p.getFileName().toString())) FileSync.deleteTree(p);
    }
  }

  /**
   * Keeps the {@code keep} newest committed checkpoints ({@code keep <= 0}: all); deletes older ones,
   * and temporary directories of earlier steps, never anything at or after {@code current}.
   */
  static void prune(Path root, long current, int keep) throws IOException {
    List<Path> committed = CheckpointLayout.committed(root);
    if (keep > 0) {
      for (int i = keep; i < committed.size(); i++) {
        Path p = committed.get(i);
        if (CheckpointLayout.stepOf(p.getFileName().toString()).getAsLong() < current) FileSync.deleteTree(p);
      }
    }
    try (Stream<Path> s = Files.list(root)) {
      for (Path p : s.toList()) {
        OptionalLong t = CheckpointLayout.tmpStepOf(p.getFileName().toString());
        if (t.isPresent() && t.getAsLong() < current) FileSync.deleteTree(p);
      }
    }
  }
}
