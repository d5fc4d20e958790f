package dev.weft.checkpoint;

import java.nio.file.Path;

/**
 * An object store for checkpoints, found through {@link java.util.ServiceLoader} by the scheme of
 * {@code checkpoint.dir} ({@code s3://bucket/prefix}: sdk-s3). Register an implementation in
 * {@code META-INF/services/dev.weft.checkpoint.CheckpointStorageProvider}.
 */
public interface CheckpointStorageProvider {
  /** The URI scheme this provider serves, e.g. {@code s3}. */
  String scheme();

  /**
   * Opens {@code uri} (of this scheme); {@code localWork} is a local directory for staging shards and
   * caching downloads. Throws a {@link CheckpointException} with one line saying what to fix when the
   * store cannot be reached or refuses this process.
   */
  CheckpointStorage open(String uri, Path localWork);
}
