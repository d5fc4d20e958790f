package dev.weft.checkpoint;

import java.util.List;

/**
 * What one rank wrote for a save, sent to rank 0 through the rendezvous store: its shard file
 * ({@code null} when it had nothing to write), the file's size and SHA-256, and the pieces in it;
 * or {@code error} when writing failed, so rank 0 stops waiting at once.
 */
record ShardReport(int rank, String file, long bytes, String sha256, List<Written> pieces, String error) {
  static ShardReport failed(int rank, String error) { return new ShardReport(rank, null, 0, null, List.of(), error); }

  /** One tensor of the shard: the global tensor {@code name} of {@code dtype}, this slice of it. */
  record Written(String name, String dtype, long[] globalShape, long[] offset, long[] shape, long flatStart, long flatLength) {}
}
