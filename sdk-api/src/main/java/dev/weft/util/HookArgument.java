package dev.weft.util;

import org.bytedeco.pytorch.TensorBase;

/**
 * A tensor hook's argument given back as the hook is done with it. JavaCPP passes a hook its gradient by value: a copy
 * of the tensor handle that Java owns, attached to whatever PointerScope is open while autograd runs the hook (the
 * step's). Left to that scope, every gradient a hook saw lived to the step's end: a compressed LoRA base's every
 * projection output gradient (Qwen2.5-0.5B nf4, seq 256, no recompute: +294 MiB through the backward,
 * docs/performance.md round 11), a checkpointed layer's every output gradient.
 */
public final class HookArgument {
  private HookArgument() {}

  /** Releases our copy of {@code arg} (the gradient itself lives on as long as autograd or another handle keeps it). */
  public static void done(TensorBase arg) {
    arg.close();
  }
}
