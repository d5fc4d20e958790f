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

  /** Inputs and targets [B, T]; {@code documents} says where packed documents lie (null: one document per sample). */
  public record Batch(Tensor tokens, Tensor targets, PackedDocuments documents) {
    public Batch(Tensor tokens, Tensor targets) { this(tokens, targets, null); }

    /** Samples {@code [first, first + count)}. */
    public Batch rows(long first, long count) {
      return new Batch(tokens.narrow(0, first, count), targets.narrow(0, first, count),
          documents == null ? null : documents.rows(first, count));
    }
  }

  public static Batch make(TokenSource source, long firstSample, int batch, int seqLen) {
    long[] in = new long[batch * seqLen];
    long[] tg = new long[batch * seqLen];
    int[] buf = new int[seqLen + 1];
    boolean[] flags = new boolean[seqLen + 1];
    boolean packed = source.packed();
    int[] doc = new int[seqLen + 1];
    int[] docs = packed ? new int[batch * seqLen] : null;
    for (int b = 0; b < batch; b++) {
      if (packed) source.sample(firstSample + b, buf, flags, doc); else source.sample(firstSample + b, buf, flags);
      for (int t = 0; t < seqLen; t++) {
        in[b * seqLen + t] = buf[t];
        // target t is token t + 1: its flag decides, and the next document's first token is no one's target
        tg[b * seqLen + t] = flags[t + 1] && doc[t + 1] == doc[t] ? buf[t + 1] : IGNORE;
        if (packed) docs[b * seqLen + t] = doc[t];
      }
    }
    return new Batch(Tensors.ofLongs(in).view(batch, seqLen), Tensors.ofLongs(tg).view(batch, seqLen),
        packed ? PackedDocuments.of(docs, batch, seqLen) : null);
  }
}
