package dev.weft.tracking;

import dev.weft.checkpoint.Sha256;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A file's SHA-256, streamed, with the size and modification time it had: a hash already known for the same path,
 * size and time (this process's, or one an earlier attempt of the run wrote in its lineage) is reused, not read again.
 */
public record FileHash(String path, long bytes, long mtimeMs, String sha256) {
  private static final Map<String, FileHash> SEEN = new ConcurrentHashMap<>();

  /** The hash of {@code file}; {@code known} (path → hash) may hold one of an earlier attempt. */
  public static FileHash of(Path file, Map<String, FileHash> known) {
    String path = file.toAbsolutePath().normalize().toString();
    try {
      long bytes = Files.size(file);
      long mtime = Files.getLastModifiedTime(file).toMillis();
      for (FileHash h : new FileHash[] {SEEN.get(path), known.get(path)}) {
        if (h != null && h.bytes == bytes && h.mtimeMs == mtime && h.sha256 != null) return h;
      }
      MessageDigest md = Sha256.digest();
      Sha256.update(md, file);
      FileHash h = new FileHash(path, bytes, mtime, Sha256.hex(md.digest()));
      SEEN.put(path, h);
      return h;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot hash " + file, e);
    }
  }
}
