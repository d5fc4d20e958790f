package dev.weft.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * {@code manifest.json} of one checkpoint: format version, step, spec, mesh, for each global tensor
 * its shape, dtype and the pieces each shard file holds, SHA-256 and size of every shard file, and
 * the training loop's state map. Written last inside the temporary directory, so a checkpoint
 * directory with a manifest is complete.
 */
public record Manifest(String format, int version, long step, CheckpointMeta.Mesh mesh, int zeroStage, JsonNode spec,
                       Map<String, Object> state, Map<String, GlobalTensor> tensors, Map<String, FileRecord> files) {
  public static final String FORMAT = "weft-checkpoint";
  /** 2: the manifest carries its own SHA-256 ({@code manifest_sha256}); 1 (read still) had none. */
  public static final int VERSION = 2;
  public static final String FILE_NAME = "manifest.json";

  /** One global tensor: its dtype as saved (safetensors spelling), global shape, and where its pieces are. */
  public record GlobalTensor(String dtype, long[] shape, List<Piece> pieces) {}

  /** Tensor {@code key} of shard {@code file} holds this slice of the global tensor. */
  public record Piece(String file, String key, long[] offset, long[] shape, long flatStart, long flatLength) {
    public TensorSlice slice(long[] globalShape) { return new TensorSlice(globalShape, offset, shape, flatStart, flatLength); }
  }

  /** A shard file's size and SHA-256 (lowercase hex, as sha256sum prints it). */
  public record FileRecord(long bytes, String sha256) {}

  public CheckpointMeta meta() { return new CheckpointMeta(step, mesh, zeroStage, spec, state); }
}
