package dev.weft.tokenizer;

import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;

/** UTF-8 bytes as tokens: what {@code file:} sources train on. */
public final class ByteTokenizer implements Tokenizer {
  @Override
  public int[] encode(String text) {
    byte[] b = text.getBytes(StandardCharsets.UTF_8);
    int[] ids = new int[b.length];
    for (int i = 0; i < b.length; i++) ids[i] = b[i] & 0xFF;
    return ids;
  }

  @Override
  public String decode(int[] ids) {
    byte[] b = new byte[ids.length];
    for (int i = 0; i < ids.length; i++) b[i] = (byte) ids[i];
    return new String(b, StandardCharsets.UTF_8);
  }

  @Override
  public long vocabSize() { return 256; }

  @Override
  public OptionalInt separator() { return OptionalInt.empty(); }

  @Override
  public String describe() { return "bytes"; }

  @Override
  public void close() {}
}
