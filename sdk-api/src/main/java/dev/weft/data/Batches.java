package dev.weft.data;

import dev.weft.util.Tensors;
import org.bytedeco.pytorch.Tensor;

/** Turns samples into input/target tensors [B, T] (targets are inputs shifted by one token). */
public final class Batches {
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
