package dev.weft.data;

import dev.weft.error.WeftException;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Tokens stored back to back in a file region, mapped in chunks (a single Java mapping stops at
 * 2 GB). Chunks are a multiple of the token width, so no token straddles two of them. The mapping
 * is released by the garbage collector; the file handle is closed once mapped.
 */
final class MappedTokens implements TokenArray {
  static final long DEFAULT_CHUNK_BYTES = 1L << 30;

  private final Path file;
  private final long size;
  private final TokenWidth width;
  private final long chunkTokens;
  private final MappedByteBuffer[] chunks;

  MappedTokens(Path file, long offset, long size, TokenWidth width) {
    this(file, offset, size, width, DEFAULT_CHUNK_BYTES);
  }

  MappedTokens(Path file, long offset, long size, TokenWidth width, long chunkBytes) {
    this.file = file;
    this.size = size;
    this.width = width;
    this.chunkTokens = chunkBytes / width.bytes;
    int n = (int) ((size + chunkTokens - 1) / chunkTokens);
    this.chunks = new MappedByteBuffer[n];
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long need = offset + size * width.bytes;
      if (ch.size() < need) {
        throw new WeftException(file + " is " + ch.size() + " bytes but its header promises " + need + "; the file is truncated");
      }
      for (int c = 0; c < n; c++) {
        long first = c * chunkTokens;
        long count = Math.min(chunkTokens, size - first);
        chunks[c] = ch.map(FileChannel.MapMode.READ_ONLY, offset + first * width.bytes, count * width.bytes);
        chunks[c].order(ByteOrder.LITTLE_ENDIAN);
      }
    } catch (IOException e) {
      throw new WeftException("cannot map " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public long size() { return size; }

  @Override
  public String where(long i) { return file + " token " + i; }

  @Override
  public int get(long i) {
    if (i < 0 || i >= size) throw new IndexOutOfBoundsException("token " + i + " outside [0, " + size + ") of " + file);
    return width.read(chunks[(int) (i / chunkTokens)], (int) (i % chunkTokens) * width.bytes);
  }

  TokenWidth width() { return width; }

  @Override
  public String toString() { return file + " (" + size + " tokens, " + width + ")"; }
}
