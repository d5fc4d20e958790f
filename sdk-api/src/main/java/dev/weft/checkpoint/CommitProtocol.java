package dev.weft.checkpoint;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
  private static final String OLD_PREFIX = ".old-";

  private CommitProtocol() {}

  static Path commit(Path root, Path tmp, Manifest m) throws IOException {
    long step = m.step();
    removeStrays(tmp, m.files().keySet());
    ManifestIO.write(m, tmp.resolve(Manifest.FILE_NAME));
    FileSync.fsyncDir(tmp);
    Path target = root.resolve(CheckpointLayout.stepDirName(step));
    Path old = null;
    if (Files.exists(target)) { // saving a step again (after resuming from an earlier one): set the old copy aside
      old = root.resolve(OLD_PREFIX + CheckpointLayout.stepDirName(step));
      FileSync.deleteTree(old);
      FileSync.rename(target, old);
    }
    FileSync.rename(tmp, target);
    FileSync.fsyncDir(root);
    FileSync.writeAtomically(root.resolve(CheckpointLayout.LATEST), CheckpointLayout.latestText(step, runTokenOf(m)));
    if (old != null) FileSync.deleteTree(old);
    return target;
  }

  /** The identity of the run token the manifest's state records (null: none recorded). */
  static Object runTokenOf(Manifest m) {
    return m.state() == null ? null : m.state().get(CheckpointLayout.STATE_RUN_TOKEN);
  }

  /** Files a crashed earlier attempt at this step left in the temporary directory. */
  private static void removeStrays(Path tmp, Set<String> keepNames) throws IOException {
    try (Stream<Path> s = Files.list(tmp)) {
      for (Path p : s.toList()) if (!keepNames.contains(p.getFileName().toString())) FileSync.deleteTree(p);
    }
  }

  /**
   * Deletes the committed checkpoints {@link Retention} gives up after committing {@code current}.
   * Leftovers of interrupted saves are not touched here; {@code removeLeftovers} clears them when a save starts.
   */
  static void prune(CheckpointStorage storage, long current, int keep, OptionalLong resumedFrom, Set<Long> written,
                    OptionalLong pinned) throws IOException {
    for (long s : Retention.toDelete(storage.committedSteps(), current, keep, resumedFrom, written, pinned)) storage.delete(s);
  }

  /**
   * Removes what interrupted saves left under {@code root} ({@code .tmp-step-*} of other steps, which
   * may fill a disk, and {@code .old-step-*}), before step {@code current} is written. The current
   * step's temporary directory is kept: other ranks may be writing into it already.
   */
  static void removeLeftovers(Path root, long current) throws IOException {
    if (!Files.isDirectory(root)) return;
    try (Stream<Path> s = Files.list(root)) {
      for (Path p : s.toList()) {
        String name = p.getFileName().toString();
        OptionalLong t = CheckpointLayout.tmpStepOf(name);
        if ((t.isPresent() && t.getAsLong() != current) || name.startsWith(OLD_PREFIX)) FileSync.deleteTree(p);
      }
    }
  }
}
