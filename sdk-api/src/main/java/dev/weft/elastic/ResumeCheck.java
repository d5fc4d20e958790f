package dev.weft.elastic;

import dev.weft.checkpoint.CheckpointException;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.checkpoint.CheckpointStorage;
import dev.weft.checkpoint.CheckpointStorages;
import dev.weft.checkpoint.RunRecord;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The agent's answer to "does a new generation resume?", asked of the run's agreed checkpoint
 * location through the storage seam. Opened once per agent run (an object store is checked for its
 * bucket and credentials then, before any worker starts) and closed with it.
 */
final class ResumeCheck implements AutoCloseable {
  private final CheckpointStorage storage;
  private final boolean local;
  private final Consumer<String> say;

  private final String runIdentity;

  /** @param runIdentity {@link dev.weft.comm.RunToken#identity} of this run's token: another run's checkpoint is refused */
  ResumeCheck(String location, Path localWork, String runIdentity, Consumer<String> say) {
    this.storage = CheckpointStorages.open(location, localWork);
    this.local = !CheckpointStorages.isUri(location);
    this.runIdentity = runIdentity;
    this.say = say;
  }

  /** The location as a string the workers get in {@code checkpoint.dir}: an absolute local path, or the URI unchanged. */
  static String location(String dir, Path runDir) {
    if (dir.isBlank()) return runDir.resolve("checkpoints").toAbsolutePath().toString();
    return CheckpointStorages.isUri(dir) ? dir : Path.of(dir).toAbsolutePath().toString();
  }

  /** Whether the workers should start with {@code checkpoint.resume=latest}. */
  boolean hasCheckpoint() {
    // whoever moved latest last: another run's commit there (a shared claim, a foreign agent) is refused before any worker
    // starts, local or in an object store, where the agent reads no manifest
    storage.latestOwner().ifPresent(owner -> dev.weft.comm.RunToken.requireSameRun(
        storage.location().replaceAll("/+$", "") + "/latest", owner, runIdentity));
    // a local directory: the full verification with fallback the workers will repeat, so a run whose
    // every checkpoint is damaged starts over instead of failing each generation
    if (local) {
      var latest = CheckpointResolver.latest(storage, c -> {});
      latest.ifPresent(c -> dev.weft.comm.RunToken.requireSameRun(c.dir().toString(),
          c.manifest().state() == null ? null : c.manifest().state().get(dev.weft.comm.RunToken.STATE_KEY), runIdentity));
      return latest.isPresent();
    }
    // an object store: verifying means downloading a whole checkpoint into the agent each generation,
    // only for the workers to download it again. A committed step (its manifest, written last, is the
    // commit) is the sound cheap test: the workers verify it fully and fall back past damaged ones
    // themselves; if none of them is usable they fail loudly, bounded by elastic.maxRestarts, rather
    // than silently retraining from step 0 over a bucket that holds the run's progress.
    try {
      return !storage.committedSteps().isEmpty();
    } catch (CheckpointException e) {
      // same reasoning: a listing that fails (the store flaking) must not restart the run from scratch
      say.accept("cannot list " + storage.location() + " (" + e.getMessage() + "); the workers resume from its latest checkpoint");
      return true;
    }
  }

  /** The run record kept with these checkpoints for the run dir {@code runDir}; null when they lie inside it. */
  RunRecord record(Path runDir) { return RunRecord.of(storage, runDir); }

  @Override
  public void close() {
    storage.close();
  }
}
