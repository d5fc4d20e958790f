package dev.weft.parallel.tensor;

import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/** The contiguous block of vocabulary rows [start, end) that one tensor-parallel rank holds. */
public record VocabRange(long start, long end) {
  public static VocabRange of(long vocab, int rank, int size) {
    long n = vocab / size;
    return new VocabRange(rank * n, (rank + 1) * n);
  }

  public long size() { return end - start; }

  /** True where a token id falls in this range. */
  public Tensor owns(Tensor ids) {
    return ids.ge(new Scalar(start)).logical_and(ids.lt(new Scalar(end)));
  }

  /** Ids shifted into this range, with foreign ids mapped to row 0 (their results are masked out). */
  public Tensor localIds(Tensor ids, Tensor owned) {
    return ids.sub(new Scalar(start)).mul(owned.to(ids.scalar_type()));
  }

  /** Embedding rows for owned ids, zeros elsewhere: partial sums to be reduced across ranks. */
  public Tensor lookup(Tensor weight, Tensor ids) {
    Tensor owned = owns(ids);
    Tensor rows = torch.embedding(weight, localIds(ids, owned));
    return rows.mul(owned.unsqueeze(-1).to(rows.scalar_type()));
  }
}
