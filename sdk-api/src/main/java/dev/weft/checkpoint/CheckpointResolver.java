package dev.weft.checkpoint;

import dev.weft.spec.SpecException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the checkpoint to resume from. {@code latest} names the newest committed checkpoint; if it
 * (or the checkpoint it names) is damaged in any way — the directory is gone, the manifest fails its
 * own checksum or its fields, a shard fails its size, SHA-256 or header, or the caller's check of the
 * state refuses it — a warning names the file and the next older complete checkpoint is used. Checkpoints newer than {@code latest} are ignored: they were committed
 * but {@code latest}, written last, never pointed at them. Every candidate is fully verified, so all
 * ranks reach the same answer from the same files. The same rules hold for any {@link CheckpointStorage}.
 */
public final class CheckpointResolver {
  private static final Logger log = LoggerFactory.getLogger(CheckpointResolver.class);

  /** The state key under which a checkpoint records the eval loss measured at its step ({@code train.evalEvery}). */
  public static final String EVAL_LOSS = "eval_loss";

  private CheckpointResolver() {}

  /**
   * The complete checkpoint in {@code storage} with the lowest recorded eval loss (ties: the earlier step), damaged ones
   * passed over with a warning; empty when none records one ({@code checkpoint.saveBest} with {@code train.evalEvery}).
   */
  public static Optional<Checkpoint> best(CheckpointStorage storage) {
    Checkpoint best = null;
    double lowest = Double.POSITIVE_INFINITY;
    List<Long> steps = new ArrayList<>(storage.committedSteps());
    steps.sort(Long::compare);
    for (long step : steps) {
      try {
        Checkpoint c = Checkpoint.open(storage.fetch(step), CheckpointKey.fromEnvironment());
        double loss = c.stateDouble(EVAL_LOSS, Double.NaN);
        if (loss < lowest) {
          c.verify();
          best = c;
          lowest = loss;
        }
      } catch (CheckpointException e) {
        log.warn("checkpoint {} is damaged ({}); it is not a candidate for the best", storage.locationOf(step), e.getMessage());
      }
    }
    return Optional.ofNullable(best);
  }

  /** {@code --resume latest|PATH}: the newest good checkpoint under {@code root}, or the checkpoint directory PATH. */
  public static Checkpoint resolve(Path root, String resume) {
    return resolve(root, resume, c -> {});
  }

  /** As {@link #resolve(Path, String)}, with {@code check} run on each candidate (see below). */
  public static Checkpoint resolve(Path root, String resume, Consumer<Checkpoint> check) {
    return resolve(new LocalCheckpointStorage(root), resume, check);
  }

  /**
   * {@code --resume latest|PATH|URI} against {@code storage}, with {@code check} run on each candidate
   * after it verifies: it throws a {@link CheckpointException} for a checkpoint whose state the caller
   * cannot use. When every candidate of {@code latest} is refused, a {@link SpecException} on
   * {@code checkpoint.resume} names each and why (exit 2: nothing to resume). A URI names one checkpoint of {@code storage} ({@code s3://bucket/prefix/step-000010});
   * {@link CheckpointStorages#forResume} opens the storage of a URI elsewhere.
   */
  public static Checkpoint resolve(CheckpointStorage storage, String resume, Consumer<Checkpoint> check) {
    return resolve(storage, resume, check, true);
  }

  /**
   * As {@link #resolve(CheckpointStorage, String, Consumer)} without a warning per refused candidate:
   * for a launcher checking before any rank starts (the ranks warn when they resolve).
   */
  public static Checkpoint resolveQuietly(CheckpointStorage storage, String resume) {
    return resolve(storage, resume, c -> {}, false);
  }

  private static Checkpoint resolve(CheckpointStorage storage, String resume, Consumer<Checkpoint> check, boolean warn) {
    if ("latest".equals(resume)) {
      List<String> why = new ArrayList<>();
      Optional<Checkpoint> found = scan(storage, check, why, warn);
      if (found.isPresent()) return found.get();
      // every candidate damaged (or none at all): nothing to resume, and nothing a retry would change
      throw new SpecException("checkpoint.resume", "latest: " + (why.isEmpty() ? "no complete checkpoint under " + storage.location()
          : "none of the " + why.size() + " checkpoint(s) under " + storage.location() + " is intact: " + String.join("; ", why))
          + "; train without --resume, or point checkpoint.dir at the run's checkpoints");
    }
    CheckpointStorages.Step uri = CheckpointStorages.stepUri(resume);
    if (uri != null && !uri.root().equals(CheckpointStorages.trimmed(storage.location()))) {
      throw new IllegalArgumentException(resume + " is not a checkpoint of " + storage.location());
    }
    return verified(uri == null ? Path.of(resume) : storage.fetch(uri.step()), check);
  }

  private static Checkpoint verified(Path dir, Consumer<Checkpoint> check) {
    Checkpoint c = Checkpoint.open(dir);
    c.verify();
    check.accept(c);
    return c;
  }

  /** The newest complete checkpoint under {@code root}, falling back past damaged ones; empty when there is none. */
  public static Optional<Checkpoint> latest(Path root) {
    return latest(new LocalCheckpointStorage(root), c -> {});
  }

  /** The newest complete checkpoint in {@code storage}, falling back past damaged ones; empty when there is none. */
  public static Optional<Checkpoint> latest(CheckpointStorage storage, Consumer<Checkpoint> check) {
    return scan(storage, check, new ArrayList<>(), true);
  }

  /** The newest candidate that verifies; each one refused adds "step-N: why" to {@code why}. */
  private static Optional<Checkpoint> scan(CheckpointStorage storage, Consumer<Checkpoint> check, List<String> why, boolean warn) {
    for (long step : candidates(storage)) {
      try {
        Checkpoint c = verified(storage.fetch(step), check);
        if (c.step() != step) {
          throw new CorruptCheckpointException(c.dir().resolve(Manifest.FILE_NAME), "says step " + c.step() + " but is stored as "
              + CheckpointLayout.stepDirName(step) + "; refused (altered or moved)");
        }
        return Optional.of(c);
      } catch (CheckpointException e) {
        why.add(CheckpointLayout.stepDirName(step) + " (" + e.getMessage() + ")");
        if (warn) log.warn("checkpoint {} is damaged ({}); falling back to the previous one", storage.locationOf(step), e.getMessage());
      }
    }
    return Optional.empty();
  }

  /** The step {@code latest} names, then older committed ones, newest first. */
  static List<Long> candidates(CheckpointStorage storage) {
    List<Long> committed = new ArrayList<>(storage.committedSteps());
    committed.sort((a, b) -> Long.compare(b, a));
    OptionalLong pointed = storage.latest();
    List<Long> out = new ArrayList<>();
    if (pointed.isPresent()) out.add(pointed.getAsLong());
    for (long s : committed) if (pointed.isEmpty() || s < pointed.getAsLong()) out.add(s);
    return out;
  }
}
