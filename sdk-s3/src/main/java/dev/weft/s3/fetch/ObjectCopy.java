package dev.weft.s3.fetch;

import dev.weft.util.FileModes;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;

/**
 * Copies one object to {@code NAME.partial} beside its target, continuing a partial file left by an interrupted
 * fetch, then checks size and checksums over every byte of the file and renames it into place. A file that does not
 * match is deleted: a continued one is copied again from the start once; a fresh one is refused as corrupt.
 */
final class ObjectCopy {
  static final String PARTIAL = ".partial";
  private static final int BUFFER = 1 << 16;

  private final FetchSource source;
  private final FetchListener listener;

  ObjectCopy(FetchSource source, FetchListener listener) {
    this.source = source;
    this.listener = listener;
  }

  /** Copies {@code o} to {@code target}; the SHA-256 of its bytes. */
  String copy(SourceObject o, Path target) throws IOException {
    Files.createDirectories(target.getParent());
    Path partial = target.resolveSibling(target.getFileName() + PARTIAL);
    long have = Files.isRegularFile(partial, LinkOption.NOFOLLOW_LINKS) ? Files.size(partial) : 0;
    if (have > o.size()) {
      Files.delete(partial);
      have = 0;
    }
    Optional<Set<PosixFilePermission>> mode = source.permissions(o);
    Attempt a = attempt(o, partial, have, mode);
    if (a.mismatch().isPresent() && have > 0) {
      Files.deleteIfExists(partial);
      a = attempt(o, partial, 0, mode);
    }
    if (a.mismatch().isPresent()) {
      Files.deleteIfExists(partial);
      throw new CorruptObjectException(source.describe() + ": object " + o.name() + " is corrupt (" + a.mismatch().get()
          + "); nothing of it was kept in " + target.getParent() + "; re-upload it or remove it from the source");
    }
    Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return a.sha256();
  }

  /** What an attempt found: the SHA-256 of the partial file, and what does not match the source, if anything. */
  private record Attempt(String sha256, Optional<String> mismatch) {}

  /** Appends the object's bytes from {@code from} to {@code partial} (its mode cut to {@code mode}), then checks the whole file. */
  private Attempt attempt(SourceObject o, Path partial, long from, Optional<Set<PosixFilePermission>> mode) throws IOException {
    long done = from;
    try (InputStream in = source.open(o, from);
        OutputStream out = Files.newOutputStream(partial, StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS,
            from == 0 ? StandardOpenOption.TRUNCATE_EXISTING : StandardOpenOption.APPEND)) {
      FileModes.narrow(partial, mode); // before its first byte: the copy is never readable by more than the source
      byte[] buf = new byte[BUFFER];
      for (int n; (n = in.read(buf)) > 0; ) {
        out.write(buf, 0, n);
        done += n;
        listener.bytes(o, done);
      }
    }
    if (done < o.size()) throw new IOException(source.describe() + ": object " + o.name() + " ended at " + done + " of " + o.size() + " bytes");
    Hashes h = hashes(partial, o.md5());
    if (done > o.size()) return new Attempt(h.sha256, Optional.of(done + " bytes where the listing says " + o.size()));
    if (o.md5().isPresent() && !o.md5().get().equalsIgnoreCase(h.md5)) return new Attempt(h.sha256, Optional.of("MD5 " + h.md5 + ", its ETag says " + o.md5().get()));
    if (o.sha256().isPresent() && !o.sha256().get().equalsIgnoreCase(h.sha256)) {
      return new Attempt(h.sha256, Optional.of("SHA-256 " + h.sha256 + ", its metadata says " + o.sha256().get()));
    }
    return new Attempt(h.sha256, Optional.empty());
  }

  private record Hashes(String md5, String sha256) {}

  private static Hashes hashes(Path file, Optional<String> wantMd5) throws IOException {
    MessageDigest sha = digest("SHA-256"), md5 = wantMd5.isPresent() ? digest("MD5") : null;
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buf = new byte[BUFFER];
      for (int n; (n = in.read(buf)) > 0; ) {
        sha.update(buf, 0, n);
        if (md5 != null) md5.update(buf, 0, n);
      }
    }
    HexFormat hex = HexFormat.of();
    return new Hashes(md5 == null ? "" : hex.formatHex(md5.digest()), hex.formatHex(sha.digest()));
  }

  private static MessageDigest digest(String name) {
    try {
      return MessageDigest.getInstance(name);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(name + " is part of every Java runtime", e);
    }
  }
}
