package dev.weft.data;

import dev.weft.util.Tensors;
import org.bytedeco.pytorch.Tensor;

/**
 * Turns samples into input/target tensors [B, T] (targets are inputs shifted by one token). A target whose token
 * is not flagged as one by its source (a prompt token of chat data) is {@link #IGNORE}: the loss skips it.
 */
public final class Batches {
  /** The target of a position the loss ignores (the value PyTorch's cross-entropy ignores by default). */
  public static final int IGNORE = -100;

  private Batches() {}

  public record Batch(Tensor tokens, Tensor targets) {}

  public static Batch make(TokenSource source, long firstSample, int batch, int seqLen) {
    long[] in = new long[batch * seqLen];
    long[] tg = new long[batch * seqLen];
    int[] buf = new int[seqLen + 1];
    boolean[] flags = new boolean[seqLen + 1];
    for (int b = 0; b < batch; b++) {
      source.sample(firstSample + b, buf, flags);
      for (int t = 0; t < seqLen; t++) {
        in[b * seqLen + t] = buf[t];
        tg[b * seqLen + t] = flags[t + 1] ? buf[t + 1] : IGNORE; // target t is token t + 1: its flag decides
      }
    }
    return new Batch(Tensors.ofLongs(in).view(batch, seqLen), Tensors.ofLongs(tg).view(batch, seqLen));
  }
}
