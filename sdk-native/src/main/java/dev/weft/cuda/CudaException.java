package dev.weft.cuda;

import dev.weft.error.WeftException;

/** A CUDA runtime call failed; the message names the call, the CUDA error and what to do. */
public final class CudaException extends WeftException {
  private final int code;

  public CudaException(String message, int code) {
    super(message);
    this.code = code;
  }

  /** The cudaError_t, or -1 when the failure happened before CUDA was reached (e.g. a library did not load). */
  public int code() { return code; }
}
