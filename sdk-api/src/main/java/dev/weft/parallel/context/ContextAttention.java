package dev.weft.parallel.context;

import dev.weft.models.AttentionMask;
import org.bytedeco.pytorch.Tensor;

/** Attention of this rank's queries [B, H, T/cp, d] over the whole sequence, K/V [B, KV, T/cp, d] being this rank's part of it. */
interface ContextAttention {
  Tensor apply(Tensor q, Tensor k, Tensor v, AttentionMask mask);
}
