package dev.weft.checkpoint;

import org.bytedeco.pytorch.global.torch.ScalarType;

/** Element types of the safetensors format that Weft reads and writes, with their libtorch twins. */
public enum DType {
  F64(8, ScalarType.Double),
  F32(4, ScalarType.Float),
  F16(2, ScalarType.Half),
  BF16(2, ScalarType.BFloat16),
  I64(8, ScalarType.Long),
  I32(4, ScalarType.Int),
  I16(2, ScalarType.Short),
  I8(1, ScalarType.Char),
  U8(1, ScalarType.Byte),
  BOOL(1, ScalarType.Bool);

  private final int bytes;
  private final ScalarType scalarType;

  DType(int bytes, ScalarType scalarType) {
    this.bytes = bytes;
    this.scalarType = scalarType;
  }

  public int bytes() { return bytes; }
  public ScalarType scalarType() { return scalarType; }

  /** The safetensors spelling ("F32", "BF16", ...). */
  public String safetensorsName() { return name(); }

  /** The type for a safetensors dtype string, spelled exactly (as the reference reader wants), or {@code null} when it is not one Weft handles. */
  public static DType fromSafetensors(String name) {
    if (name == null) return null;
    for (DType d : values()) if (d.name().equals(name)) return d;
    return null;
  }

  public static DType of(ScalarType t) {
    for (DType d : values()) if (d.scalarType.value == t.value) return d;
    throw new CheckpointException("tensors of type " + t + " cannot be checkpointed; use one of F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL");
  }
}
