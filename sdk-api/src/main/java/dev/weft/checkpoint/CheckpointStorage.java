package dev.weft.checkpoint;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * Where a run's checkpoints live: a local directory ({@link LocalCheckpointStorage}) or an object
 * store found by URI scheme ({@link CheckpointStorageProvider}, e.g. {@code s3://} from sdk-s3).
 * Every rank writes its shard into a local {@link #staging} directory; {@link #shardWritten} makes it
 * durable there before the rank reports it; rank 0's {@link #commit} writes the manifest last, and that
 * write is the commit. Readers {@link #fetch} a step into a local directory and verify it as on disk.
 */
public interface CheckpointStorage extends AutoCloseable {
  /** The location as the user gave it (a directory or a URI), for messages and logs; never holds credentials. */
  String location();

  /** A local directory (created) for this process to write its shard of {@code step} into. */
  Path staging(long step) throws IOException;

  /** This rank's shard of {@code step}, written and synced at {@code file} inside {@link #staging}, must be durable here before the rank reports it. */
  void shardWritten(long step, Path file) throws IOException;

  /**
   * Rank 0, once every rank reported: commits {@code step} with manifest {@code m}, written after
   * every shard, then points {@code latest} at it. Returns where the committed checkpoint is.
   */
  String commit(long step, Path staging, Manifest m) throws IOException;

  /** Removes what interrupted saves of steps other than {@code current} left behind (rank 0, before writing {@code current}). */
  void removeLeftovers(long current) throws IOException;

  /** The committed steps (those with a manifest), in any order. */
  List<Long> committedSteps();

  /** The step {@code latest} names; empty when it is missing or unreadable (which is logged). */
  OptionalLong latest();

  /**
   * The identity of the run token of the run whose commit wrote {@code latest} ({@link CheckpointLayout#latestText});
   * empty when {@code latest} is missing, unreadable or names none.
   */
  default java.util.Optional<String> latestOwner() { return java.util.Optional.empty(); }

  /** Deletes committed checkpoint {@code step}: its manifest first, so a half-deleted one is never committed. */
  void delete(long step) throws IOException;

  /**
   * A local directory holding {@code step}'s manifest and the shards it lists, for {@link Checkpoint#open}
   * (object stores download them). Missing pieces are left missing: verification names them.
   */
  Path fetch(long step);

  /** Frees the local copies {@link #fetch} made, once loaded (a local directory has none). */
  default void dropFetched() {}

  /** The location of checkpoint {@code step}, for messages. */
  default String locationOf(long step) { return CheckpointStorages.trimmed(location()) + "/" + CheckpointLayout.stepDirName(step); }

  /**
   * Stores {@code file} as file {@code name} of the run record kept with the checkpoints ({@link RunRecord}: {@code
   * run/NAME} under the location), replacing what was there.
   */
  void putRecord(String name, Path file) throws IOException;

  /**
   * Stores {@code file} as {@code name} (one plain file name) directly under the location, replacing what was there: files
   * kept beside checkpoints that are no part of them, such as TensorBoard event files ({@code tracking.tensorboard: s3://...}).
   */
  void putFile(String name, Path file) throws IOException;

  /** Copies file {@code name} of the run record to {@code into}; false when the record has no such file. */
  boolean getRecord(String name, Path into) throws IOException;

  @Override
  default void close() {}
}
