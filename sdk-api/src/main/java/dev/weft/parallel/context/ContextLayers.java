package dev.weft.parallel.context;

import dev.weft.comm.Communicator;
import dev.weft.models.AttentionMask;
import dev.weft.models.Layers;
import dev.weft.models.Parameters;
import dev.weft.spec.CpMethod;
import java.util.List;
import org.bytedeco.pytorch.Tensor;

/**
 * The layers of a context-parallel rank: {@code inner}'s (plain or tensor-parallel) with attention replaced by
 * the cp group's method — all-gathered K/V with fused attention, ring attention, or Ulysses' all-to-all. Every
 * other layer is per token, so it runs on this rank's part of the sequence unchanged; the batch arrives
 * already cut ({@link ContextSplit}).
 */
public final class ContextLayers implements Layers {
  private final Layers inner;
  private final CommTally tally = new CommTally();
  private final ContextAttention attention;

  /** {@code method}: {@code allgather} (K/V gathered), {@code ring} (K/V passed around) or {@code alltoall} (heads ↔ sequence). */
  public ContextLayers(Layers inner, Communicator cp, String method) {
    this.inner = inner;
    this.attention = switch (CpMethod.of(method)) {
      case RING -> new RingAttention(cp, tally);
      case ALLTOALL -> new UlyssesAttention(cp, tally);
      case ALLGATHER -> new AllGatherAttention(cp, tally);
    };
  }

  public Layers inner() { return inner; }

  /** Nanoseconds spent waiting on attention's cp exchanges since the last call (what compute did not hide). */
  public long takeWaitNanos() { return tally.takeWaitNanos(); }

  /** Bytes this rank sent and received in attention's cp exchanges since the last call. */
  public long takeBytes() { return tally.takeBytes(); }

  @Override
  public Tensor attention(Tensor q, Tensor k, Tensor v, AttentionMask mask) { return dev.weft.util.CallScope.run(() -> attention.apply(q, k, v, mask)); }

  @Override
  public Linear columns(List<String> names, long in, long[] outs, double std, boolean bias) { return inner.columns(names, in, outs, std, bias); }

  @Override
  public Linear replicated(String name, Tensor weight) { return inner.replicated(name, weight); }

  @Override
  public Linear row(String name, long in, long out, double std, boolean bias) { return inner.row(name, in, out, std, bias); }

  @Override
  public Embedding embedding(String name, long vocab, long dim, double std) { return inner.embedding(name, vocab, dim, std); }

  @Override
  public Embedding positionEmbedding(String name, long rows, long dim, double std) { return inner.positionEmbedding(name, rows, dim, std); }

  @Override
  public Linear layerNorm(String name, long dim) { return inner.layerNorm(name, dim); }

  @Override
  public Linear rmsNorm(String name, long dim, double eps) { return inner.rmsNorm(name, dim, eps); }

  @Override
  public Linear headNorm(String name, long headDim, double eps) { return inner.headNorm(name, headDim, eps); }

  @Override
  public LmHead lmHead(String name, long dim, long vocab, double std) { return inner.lmHead(name, dim, vocab, std); }

  @Override
  public LmHead tiedLmHead(String embeddingName, long dim, long vocab) { return inner.tiedLmHead(embeddingName, dim, vocab); }

  @Override public int splits() { return inner.splits(); }
  @Override public Parameters parameters() { return inner.parameters(); }
}
