package dev.weft.s3.fetch;

import dev.weft.spec.SpecException;
import dev.weft.util.FileModes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A directory on a mounted volume (a PVC): every regular file under it (but a fetch's own bookkeeping); sizes are
 * checked, nothing vouches for a checksum. Only regular files are copied: a link is followed only to a file inside
 * the directory, and a link that leaves it, or a FIFO, socket or device, is refused in one line naming it (a link to
 * {@code /etc/shadow} planted in a model directory must not become a readable copy).
 */
public record LocalSource(Path root) implements FetchSource {
  @Override
  public List<SourceObject> list() throws IOException {
    List<SourceObject> out = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) { // links are not followed into
      for (Path f : files.filter(f -> !f.equals(root)).sorted().toList()) {
        String name = root.relativize(f).toString().replace(f.getFileSystem().getSeparator(), "/");
        if (Fetcher.isBookkeeping(name)) continue;
        if (Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS)) continue;
        Path file = regularInside(name);
        if (file == null) continue; // a link to a directory inside: its files are listed under their own names
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        out.add(new SourceObject(name, a.size(), Optional.empty(), Optional.empty(), a.size() + "@" + a.lastModifiedTime().toMillis()));
      }
    }
    return out;
  }

  /**
   * The regular file {@code name} is, or the one inside the source its link leads to; null for a link to a
   * directory inside. Anything else is refused in one line.
   */
  private Path regularInside(String name) throws IOException {
    Path f = root.resolve(name);
    Path file = f;
    if (Files.isSymbolicLink(f)) {
      try {
        file = f.toRealPath();
      } catch (NoSuchFileException dangling) {
        throw new SpecException("SRC", f + " is a link to nothing (" + Files.readSymbolicLink(f) + "); remove it from the source");
      }
      if (!file.startsWith(root.toRealPath())) {
        throw new SpecException("SRC", f + " is a link to " + file + ", outside " + root + "; links are followed only inside the source:"
            + " copy the file itself into it or remove the link");
      }
      if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) return null;
    }
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw new SpecException("SRC", f + " is not a regular file (a FIFO, socket or device); only regular files are fetched: remove it"
          + " from the source");
    }
    return file;
  }

  @Override
  public InputStream open(SourceObject o, long offset) throws IOException {
    Path file = regularInside(o.name()); // again: the source may have changed since it was listed
    if (file == null) throw new IOException(o.name() + " is a directory now");
    FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    ch.position(offset);
    return Channels.newInputStream(ch);
  }

  @Override
  public Optional<Set<PosixFilePermission>> permissions(SourceObject o) throws IOException {
    Path file = regularInside(o.name());
    return file == null ? Optional.empty() : FileModes.of(file);
  }

  @Override public String describe() { return root.toString(); }
}
