package dev.weft.cuda.nccl;

import dev.weft.comm.CommException;
import org.bytedeco.pytorch.global.torch.ScalarType;

/** ncclDataType_t values, and which libtorch scalar type each one carries. */
public enum NcclDataType {
  INT8(0, 1), UINT8(1, 1), INT32(2, 4), UINT32(3, 4), INT64(4, 8), UINT64(5, 8),
  FLOAT16(6, 2), FLOAT32(7, 4), FLOAT64(8, 8), BFLOAT16(9, 2);

  public final int code;
  public final int bytes;

  NcclDataType(int code, int bytes) {
    this.code = code;
    this.bytes = bytes;
  }

  public static NcclDataType of(ScalarType t) {
    return switch (t) {
      case Char -> INT8;
      case Byte, Bool -> UINT8;
      case Int -> INT32;
      case Long -> INT64;
      case Half -> FLOAT16;
      case Float -> FLOAT32;
      case Double -> FLOAT64;
      case BFloat16 -> BFLOAT16;
      default -> throw new CommException("NCCL cannot carry tensors of type " + t
          + "; convert to float32, float16, bfloat16, float64 or an integer type first");
    };
  }
}
