package dev.weft.parallel.expert;

import dev.weft.comm.Communicator;
import dev.weft.models.AttentionMask;
import dev.weft.models.Experts;
import dev.weft.models.Layers;
import dev.weft.models.Parameters;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.bytedeco.pytorch.Tensor;

/**
 * The layers of an expert-parallel rank: everything as {@code inner} builds it, except routed experts, which are
 * split over the ep group and reached by all-to-all ({@link ExpertParallelExperts}). This rank registers only its
 * own experts' parameters; the others live on the other ep ranks.
 */
public final class ExpertParallelLayers implements Layers {
  private final Layers inner;
  private final Communicator ep;
  private final Set<String> expertNames = new LinkedHashSet<>();

  public ExpertParallelLayers(Layers inner, Communicator ep) {
    this.inner = inner;
    this.ep = ep;
  }

  public Layers inner() { return inner; }

  /** The parameters of this rank's experts (the optimizer reduces them over only the ranks holding the same ones). */
  public Set<String> expertParameters() { return Set.copyOf(expertNames); }

  @Override
  public Experts experts(String prefix, List<String> parts, int count, long in, long hidden, double std) {
    if (ep.size() == 1) return inner.experts(prefix, parts, count, in, hidden, std);
    int before = parameters().list().size();
    Experts mine = new ExpertParallelExperts(inner, ep, prefix, parts, count, in, hidden, std);
    List<Parameters.Param> all = parameters().list();
    for (Parameters.Param p : all.subList(before, all.size())) expertNames.add(p.name());
    return mine;
  }

  @Override
  public Linear columns(List<String> names, long in, long[] outs, double std, boolean bias) { return inner.columns(names, in, outs, std, bias); }

  @Override public Linear row(String name, long in, long out, double std, boolean bias) { return inner.row(name, in, out, std, bias); }
  @Override public Linear replicated(String name, Tensor weight) { return inner.replicated(name, weight); }
  @Override public Embedding embedding(String name, long vocab, long dim, double std) { return inner.embedding(name, vocab, dim, std); }
  @Override public Embedding positionEmbedding(String name, long rows, long dim, double std) { return inner.positionEmbedding(name, rows, dim, std); }
  @Override public Linear layerNorm(String name, long dim) { return inner.layerNorm(name, dim); }
  @Override public Linear rmsNorm(String name, long dim, double eps) { return inner.rmsNorm(name, dim, eps); }
  @Override public Linear headNorm(String name, long headDim, double eps) { return inner.headNorm(name, headDim, eps); }
  @Override public LmHead lmHead(String name, long dim, long vocab, double std) { return inner.lmHead(name, dim, vocab, std); }
  @Override public LmHead tiedLmHead(String embeddingName, long dim, long vocab) { return inner.tiedLmHead(embeddingName, dim, vocab); }
  @Override public Tensor attention(Tensor q, Tensor k, Tensor v, AttentionMask mask) { return inner.attention(q, k, v, mask); }
  @Override public int splits() { return inner.splits(); }
  @Override public Parameters parameters() { return inner.parameters(); }
}
