package dev.weft.cuda.nccl;

import dev.weft.comm.PendingOp;
import dev.weft.comm.RankDevice;
import org.bytedeco.pytorch.Tensor;

/**
 * Host tensors given to an NCCL group (the training loop's few scalars: the loss, norm partials, step counters,
 * replica hashes) go through a copy on the group's device: NCCL reads device memory only. The copy to the device and
 * the copy back run on libtorch's stream, which the collective is ordered with, so no extra synchronisation is needed;
 * the copy back happens when the caller awaits. Device tensors pass through untouched.
 */
final class HostStaging {
  private final RankDevice device;

  HostStaging(RankDevice device) { this.device = device; }

  /** {@code t} itself when it is a CUDA tensor (or there is no device to stage on), else a contiguous copy on the device. */
  Tensor in(Tensor t) {
    if (t.is_cuda() || device == null) return t;
    return device.place(t.contiguous());
  }

  /** {@code op}, followed by copying {@code staged} back into {@code host} when they differ. */
  static PendingOp back(PendingOp op, Tensor host, Tensor staged) {
    if (host == staged) return op;
    return () -> {
      op.await();
      host.copy_(staged);
    };
  }
}
