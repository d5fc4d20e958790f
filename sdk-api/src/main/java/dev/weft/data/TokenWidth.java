package dev.weft.data;

import java.nio.ByteBuffer;

/** How a token id is stored on disk: little-endian, 1, 2 or 4 bytes. */
public enum TokenWidth {
  UINT8(1, "|u1", 1L << 8),
  UINT16(2, "<u2", 1L << 16),
  INT32(4, "<i4", 1L << 31),
  UINT32(4, "<u4", 1L << 31);

  /** Bytes per token. */
  public final int bytes;
  /** The NumPy {@code descr} of this width. */
  public final String npyDescr;
  /** Token ids must be below this (ids are Java ints, so 4-byte ids stop at 2^31). */
  public final long limit;

  TokenWidth(int bytes, String npyDescr, long limit) {
    this.bytes = bytes;
    this.npyDescr = npyDescr;
    this.limit = limit;
  }

  /** The narrowest width of token shards (2 or 4 bytes) that holds every id below {@code vocab}. */
  public static TokenWidth forVocab(long vocab) { return vocab <= UINT16.limit ? UINT16 : UINT32; }

  int read(ByteBuffer b, int at) {
    return switch (bytes) {
      case 1 -> Byte.toUnsignedInt(b.get(at));
      case 2 -> Short.toUnsignedInt(b.getShort(at));
      default -> b.getInt(at);
    };
  }

  void write(ByteBuffer b, int token) {
    if (token < 0 || token >= limit) throw new IllegalArgumentException("token id " + token + " does not fit " + this);
    switch (bytes) {
      case 1 -> b.put((byte) token);
      case 2 -> b.putShort((short) token);
      default -> b.putInt(token);
    }
  }
}
