package dev.weft.util;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;

/**
 * Opening files whose names come from outside (a manifest, an index, a model directory): only regular
 * files, since a FIFO blocks the reader forever and a device such as {@code /dev/zero} never ends;
 * never more bytes than a limit; and names from an index resolved strictly inside their directory.
 * Links are followed (a Hugging Face cache links every file to its blob), but what they reach must be a
 * regular file too.
 */
public final class BoundedFiles {
  /** A file refused before or while reading it; the message says why, without the path (callers add it). */
  public static final class Refused extends IOException {
    public Refused(String why) { super(why); }
  }

  private BoundedFiles() {}

  /** The size of {@code file}, which must be a regular file (links followed); throws {@link Refused} otherwise. */
  public static long requireRegular(Path file) throws IOException {
    BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
    if (a.isRegularFile()) return a.size();
    throw new Refused(a.isDirectory() ? "is a directory, not a file" : "is not a regular file (a FIFO, device or socket); refused");
  }

  /** A read channel on {@code file}, checked to be a regular file first (so opening it cannot block). */
  public static FileChannel open(Path file) throws IOException {
    requireRegular(file);
    return FileChannel.open(file, StandardOpenOption.READ);
  }

  /** All bytes of the regular file {@code file}; {@link Refused} when it holds more than {@code max}, even if it grew after the check. */
  public static byte[] read(Path file, long max) throws IOException {
    long size = requireRegular(file);
    if (size > max) throw new Refused("is " + size + " bytes, over the " + max + "-byte limit");
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      int cap = (int) Math.min(max + 1, Math.max(size + 1, 4096));
      byte[] buf = new byte[cap];
      int n = 0;
      while (true) {
        if (n == buf.length) {
          if (n > max) throw new Refused("holds more than the " + max + "-byte limit");
          buf = Arrays.copyOf(buf, (int) Math.min(max + 1, (long) buf.length * 2));
        }
        int k = ch.read(ByteBuffer.wrap(buf, n, buf.length - n));
        if (k < 0) break;
        n += k;
      }
      if (n > max) throw new Refused("holds more than the " + max + "-byte limit");
      return Arrays.copyOf(buf, n);
    }
  }

  /**
   * {@code dir/name} for a plain file name read from an index or manifest: no separators, not
   * {@code .} or {@code ..}, nothing that would leave {@code dir} (as {@code ../../etc/passwd} would).
   */
  public static Path inside(Path dir, String name) throws Refused {
    if (name == null || name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0
        || name.indexOf('\\') >= 0 || name.indexOf('\0') >= 0) {
      throw new Refused("names '" + shown(name) + "', which is not a plain file name inside its directory");
    }
    Path p = dir.resolve(name);
    if (!p.normalize().startsWith(dir.normalize())) {
      throw new Refused("names '" + shown(name) + "', which is outside its directory");
    }
    return p;
  }

  private static String shown(String name) {
    if (name == null) return "null";
    return name.length() > 80 ? name.substring(0, 80) + "..." : name;
  }
}
