package dev.weft.checkpoint;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;

/** The durable file-system steps of a commit: fsync of files and directories, atomic replace, removal. */
final class FileSync {
  private FileSync() {}

  static void fsyncFile(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.force(true);
    }
  }

  /** Makes a directory's entries (creations, renames) durable. */
  static void fsyncDir(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some file systems refuse to open directories for syncing; the rename is still atomic there.
      if (!Files.isDirectory(dir)) throw e;
    }
  }

  /** Writes {@code text} to {@code file} so that readers see the old or the new content, never a mix. */
  static void writeAtomically(Path file, String text) throws IOException {
    Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
    Files.writeString(tmp, text, StandardCharsets.UTF_8);
    fsyncFile(tmp);
    rename(tmp, file);
    fsyncDir(file.toAbsolutePath().getParent());
  }

  static void rename(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("the file system of " + to + " cannot rename atomically; put checkpoint.dir on a local or POSIX file system", e);
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) return;
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    }
  }
}
