package dev.weft.parallel.context;

import org.bytedeco.pytorch.DeviceOptional;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * Causal load balancing of a sequence over {@code size} context-parallel ranks: the sequence is cut into
 * 2·size chunks and rank i holds chunks i and 2·size−1−i, concatenated (a chunk early in the sequence, whose
 * queries see few keys, with its mirror late in it, whose queries see many), so every rank does the same
 * causal attention work.
 */
public record Zigzag(int size, int rank) {
  public Zigzag {
    if (size < 1 || rank < 0 || rank >= size) throw new IllegalArgumentException("rank " + rank + " of " + size);
  }

  /** The chunk indices rank {@code r} holds, in its local order. */
  public int[] chunksOf(int r) { return new int[] {r, 2 * size - 1 - r}; }

  /** This rank's two chunks of [B, T, ...] along dim 1, concatenated: [B, T/size, ...]. */
  public Tensor slice(Tensor full) {
    if (size == 1) return full;
    long c = chunkLength(full.size(1));
    int[] own = chunksOf(rank);
    TensorVector parts = new TensorVector(full.narrow(1, own[0] * c, c), full.narrow(1, own[1] * c, c));
    return torch.cat(parts, 1);
  }

  /** Tokens per chunk of a sequence of {@code seqLen}. */
  public long chunkLength(long seqLen) {
    if (seqLen % (2L * size) != 0) throw new IllegalArgumentException("sequence " + seqLen + " does not split into 2·" + size + " chunks");
    return seqLen / (2L * size);
  }

  /** Global positions [c] of chunk {@code chunk} of {@code c} tokens, on {@code like}'s device. */
  static Tensor chunkPositions(int chunk, long c, Tensor like) {
    TensorOptions longs = new TensorOptions(ScalarType.Long).device(new DeviceOptional(like.device()));
    return torch.arange(new Scalar(chunk * c), new Scalar(chunk * c + c), longs);
  }

  /** Global positions [T/size] of this rank's tokens of a sequence of {@code seqLen}. */
  public Tensor positions(long seqLen, Tensor like) {
    long c = chunkLength(seqLen);
    int[] own = chunksOf(rank);
    return torch.cat(new TensorVector(chunkPositions(own[0], c, like), chunkPositions(own[1], c, like)), 0);
  }

  /**
   * Every rank's tokens gathered in rank order — [size, …] whose slice r is rank r's two chunks along
   * {@code seqDim} (a dim of the slice) — put in position order: the whole sequence along {@code seqDim}.
   */
  public Tensor inPositionOrder(Tensor byRank, int seqDim) {
    long c = byRank.size(seqDim + 1) / 2;
    TensorVector chunks = new TensorVector();
    for (int j = 0; j < 2 * size; j++) {
      int owner = j < size ? j : 2 * size - 1 - j;
      chunks.push_back(byRank.select(0, owner).narrow(seqDim, j < size ? 0 : c, c));
    }
    return torch.cat(chunks, seqDim);
  }
}
