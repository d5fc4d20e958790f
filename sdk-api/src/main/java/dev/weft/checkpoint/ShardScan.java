package dev.weft.checkpoint;

import dev.weft.util.BoundedFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One pass over a shard whose header is already checked: the file's SHA-256, and the first element
 * of a floating-point tensor that is NaN or ±Inf. A checkpoint holding one would resume a run that
 * has already diverged (or was tampered with), so it is refused like damage. The header guarantees
 * the tensors tile the data section, so reading them in offset order reads every byte once.
 */
final class ShardScan {
  private static final int CHUNK = 1 << 20; // a multiple of every element width

  /** The file's SHA-256; {@code tensor} and {@code element} name the first non-finite value, or {@code tensor} is null. */
  record Result(String sha256, String tensor, long element) {}

  private ShardScan() {}

  static Result of(SafetensorsFile f) throws IOException {
    MessageDigest md = Sha256.digest();
    List<SafetensorsFile.Entry> order = new ArrayList<>(f.entries().values());
    order.sort(Comparator.comparingLong(SafetensorsFile.Entry::begin));
    ByteBuffer buf = ByteBuffer.allocate(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
    String badTensor = null;
    long badElement = -1;
    try (FileChannel ch = BoundedFiles.open(f.file())) {
      long pos = copy(ch, buf, md, 0, f.dataStart());
      for (SafetensorsFile.Entry e : order) {
        for (long off = 0, n = e.end() - e.begin(); off < n; ) {
          int len = (int) Math.min(CHUNK, n - off);
          read(ch, buf, pos, len);
          md.update(buf.array(), 0, len);
          if (badTensor == null) {
            int at = firstNonFinite(buf, len, e.dtype());
            if (at >= 0) {
              badTensor = e.name();
              badElement = off / e.dtype().bytes() + at;
            }
          }
          off += len;
          pos += len;
        }
      }
      if (pos != ch.size()) throw new CorruptCheckpointException(f.file(), "changed size while being read");
    }
    return new Result(Sha256.hex(md.digest()), badTensor, badElement);
  }

  /** Hashes bytes {@code [from, to)}; returns {@code to}. */
  private static long copy(FileChannel ch, ByteBuffer buf, MessageDigest md, long from, long to) throws IOException {
    for (long pos = from; pos < to; ) {
      int len = (int) Math.min(CHUNK, to - pos);
      read(ch, buf, pos, len);
      md.update(buf.array(), 0, len);
      pos += len;
    }
    return to;
  }

  private static void read(FileChannel ch, ByteBuffer buf, long pos, int len) throws IOException {
    buf.clear().limit(len);
    while (buf.hasRemaining()) {
      if (ch.read(buf, pos + buf.position()) < 0) throw new IOException("file ends early (truncated while being read)");
    }
    buf.flip();
  }

  /** Index of the first NaN or infinity among the {@code len} bytes of {@code type} elements in {@code b}; -1 if none. */
  static int firstNonFinite(ByteBuffer b, int len, DType type) {
    switch (type) {
      case F32 -> {
        for (int i = 0, k = 0; i + 4 <= len; i += 4, k++) if ((b.getInt(i) & 0x7f800000) == 0x7f800000) return k;
      }
      case F64 -> {
        for (int i = 0, k = 0; i + 8 <= len; i += 8, k++) {
          if ((b.getLong(i) & 0x7ff0000000000000L) == 0x7ff0000000000000L) return k;
        }
      }
      case F16 -> {
        for (int i = 0, k = 0; i + 2 <= len; i += 2, k++) if ((b.getShort(i) & 0x7c00) == 0x7c00) return k;
      }
      case BF16 -> {
        for (int i = 0, k = 0; i + 2 <= len; i += 2, k++) if ((b.getShort(i) & 0x7f80) == 0x7f80) return k;
      }
      default -> { } // integers and booleans are always finite
    }
    return -1;
  }
}
