package dev.weft.data;

import dev.weft.util.Tensors;
import org.bytedeco.pytorch.Tensor;

/** Turns samples into input/target tensors [B, T] (targets are inputs shifted by one token). */
public final class Batches {
  /** A target that is no target: the loss skips it (PyTorch's and Hugging Face's ignore index). */
  public static final long IGNORE = -100;

  private Batches() {}

  public record Batch(Tensor tokens, Tensor targets) {}

  public static Batch make(TokenSource source, long firstSample, int batch, int seqLen) {
    long[] in = new long[batch * seqLen];
    long[] tg = new long[batch * seqLen];
    int[] buf = new int[seqLen + 1];
    for (int b = 0; b < batch; b++) {
      source.sample(firstSample + b, buf);
      for (int t = 0; t < seqLen; t++) {
        in[b * seqLen + t] = buf[t];
        tg[b * seqLen + t] = buf[t + 1];
      }
    }
    return new Batch(Tensors.ofLongs(in).view(batch, seqLen), Tensors.ofLongs(tg).view(batch, seqLen));
  }
}
