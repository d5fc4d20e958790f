package dev.weft.cuda.kernels;

/** Argument checks shared by the multi-tensor calls. */
final class TensorLists {
  private TensorLists() {}

  static void requireSameLength(long[] tensors, long[] sizes) {
    if (tensors.length != sizes.length) {
      throw new IllegalArgumentException(tensors.length + " tensor addresses but " + sizes.length + " sizes");
    }
  }
}
