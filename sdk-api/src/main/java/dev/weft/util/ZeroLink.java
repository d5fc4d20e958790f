package dev.weft.util;

import org.bytedeco.pytorch.ScalarTypeOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * A zero that links a tensor into autograd's graph, so that a hook registered on it runs in the backward (and returns the
 * gradient the caller computes itself): Σv − (Σv).detach(), summed in fp32 (a 16-bit sum could overflow to inf, and inf
 * − inf is NaN). Its backward hands v's hook the output gradient expanded to v's shape, a view of one value; a slice
 * of v (the earlier link) was handed a zero-filled tensor of v's size per backward, which the allocator kept resident
 * (Qwen2.5-0.5B LoRA nf4 at dp = 2: 150-270 MiB per rank, docs/performance.md round 10) and which at a tensor-parallel
 * weight's size was a weight-sized fill per call.
 */
public final class ZeroLink {
  private ZeroLink() {}

  /** 0 (fp32, no dimensions) whose gradient into {@code v} is the output gradient, expanded. */
  public static Tensor of(Tensor v) {
    Tensor sum = v.sum(new ScalarTypeOptional(ScalarType.Float));
    return sum.sub(sum.detach());
  }
}
