package dev.weft.parallel.context;

import dev.weft.comm.Communicator;
import dev.weft.models.Attention;
import dev.weft.models.AttentionMask;
import dev.weft.spec.SpecException;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * All-to-all context parallelism (Ulysses): q, k and v trade heads for sequence ({@link HeadExchange}), so
 * each rank attends over the whole sequence with cp-th of the heads, then the output trades back. The
 * gathered sequence is in rank order (each rank's zigzag chunks); it is put in position order for the plain
 * attention (causal, window, documents gathered from every rank) and back after. Heads (and grouped-query
 * K/V heads) must divide by cp.
 */
final class UlyssesAttention implements ContextAttention {
  private final Communicator cp;
  private final HeadExchange exchange;

  UlyssesAttention(Communicator cp, CommTally tally) {
    this.cp = cp;
    this.exchange = new HeadExchange(cp, tally);
  }

  @Override
  public Tensor apply(Tensor q, Tensor k, Tensor v, AttentionMask mask) {
    int n = cp.size();
    if (q.size(1) % n != 0 || k.size(1) % n != 0) {
      throw new SpecException("parallel.cpMethod", "alltoall splits the heads over cp=" + n + ", but this rank has "
          + q.size(1) + " query and " + k.size(1) + " key/value heads; use parallel.cpMethod=allgather or a cp dividing both");
    }
    Tensor gathered = positions(q.size(2) * n, q); // the position of each token of the gathered sequence
    Tensor order = torch.argsort(gathered);        // gathered index of each position
    Tensor qs = exchange.toSequence(q).index_select(2, order);
    Tensor ks = exchange.toSequence(k).index_select(2, order), vs = exchange.toSequence(v).index_select(2, order);
    AttentionMask whole = mask.documents() == null ? mask : mask.withDocuments(gatherIds(mask.documents()).index_select(1, order));
    Tensor out = Attention.plain(qs, ks, vs, whole).index_select(2, gathered);
    return exchange.toHeads(out);
  }

  /** Every rank's zigzag positions, in rank order. */
  private Tensor positions(long seqLen, Tensor like) {
    TensorVector parts = new TensorVector();
    for (int r = 0; r < cp.size(); r++) parts.push_back(new Zigzag(cp.size(), r).positions(seqLen, like));
    return torch.cat(parts, 0);
  }

  /** Every rank's document ids [B, T/cp] → [B, T] in rank order. */
  private Tensor gatherIds(Tensor local) {
    long b = local.size(0), t = local.size(1);
    return ContextSplit.gatherIds(cp, local).view(cp.size(), b, t).permute(1, 0, 2).reshape(b, cp.size() * t);
  }
}
