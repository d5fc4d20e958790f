package dev.weft.parallel.context;

import dev.weft.data.Batches;
import dev.weft.data.PackedDocuments;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * A batch cut to this context-parallel rank's tokens ({@link Zigzag}): tokens and targets sliced, and the
 * documents' positions and ids sliced where they are. A batch without documents gets them too — one document
 * per sample at its global positions — so the model applies RoPE or learned positions at each token's place
 * in the whole sequence, and attention learns where every local token stands.
 */
public final class ContextSplit {
  private ContextSplit() {}

  public static Batches.Batch of(Batches.Batch b, Zigzag z) {
    if (z.size() == 1) return b;
    Tensor tokens = b.tokens();
    PackedDocuments d = b.documents();
    PackedDocuments local = d != null ? new PackedDocuments(z.slice(d.positions()), z.slice(d.ids()))
        : oneDocument(tokens.size(0), tokens.size(1), z, tokens);
    return new Batches.Batch(z.slice(tokens), z.slice(b.targets()), local);
  }

  private static PackedDocuments oneDocument(long batch, long seqLen, Zigzag z, Tensor like) {
    Tensor pos = z.positions(seqLen, like).view(1, -1).expand(batch, -1).contiguous();
    return new PackedDocuments(pos, torch.zeros_like(pos));
  }

  /** Every cp rank's document ids [B, T/cp] → [cp·B, T/cp], rank r's in rows r·B to (r+1)·B. */
  static Tensor gatherIds(dev.weft.comm.Communicator cp, Tensor local) {
    Tensor mine = local.contiguous();
    Tensor all = dev.weft.util.Tensors.emptyLike(mine, mine.scalar_type(), cp.size() * mine.size(0), mine.size(1));
    cp.allGather(all, mine);
    return all;
  }
}
