package dev.weft.data;

import java.nio.ByteBuffer;

/** How a token id is stored on disk: little-endian, 2 or 4 bytes. */
public enum TokenWidth {
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

  /** The narrowest width that holds every id below {@code vocab}. */
  public static TokenWidth forVocab(long vocab) { return vocab <= UINT16.limit ? UINT16 : UINT32; }

  int read(ByteBuffer b, int at) { return bytes == 2 ? Short.toUnsignedInt(b.getShort(at)) : b.getInt(at); }

  void write(ByteBuffer b, int token) {
    if (token < 0 || token >= limit) throw new IllegalArgumentException("token id " + token + " does not fit " + this);
    if (bytes == 2) b.putShort((short) token); else b.putInt(token);
  }
}
