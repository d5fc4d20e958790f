package dev.weft.launch;

import dev.weft.spec.SpecException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Output paths a user names on the command line, checked before any work: a directory that is a
 * file, cannot be created or cannot be written is a one-line error naming the option (exit 2).
 */
public final class UserPaths {
  private UserPaths() {}

  /** Creates {@code dir} if needed and proves it writable by creating and removing a file in it. */
  public static Path writableDir(Path dir, String option) {
    if (Files.exists(dir) && !Files.isDirectory(dir)) throw new SpecException(option, dir + " is a file, not a directory; give a directory");
    try {
      Files.createDirectories(dir);
      Files.delete(Files.createTempFile(dir, ".weft-probe-", ""));
      return dir;
    } catch (FileAlreadyExistsException e) {
      throw new SpecException(option, "cannot create " + dir + ": " + e.getFile() + " is a file; give a directory");
    } catch (IOException | SecurityException e) {
      throw new SpecException(option, dir + " is not writable (" + reason(e) + "); give a directory you can write");
    }
  }

  /**
   * {@code dir} can be written, or made and written, by this process, without making it: a directory a run writes
   * only later (its checkpoints) is checked before training, not at its first save. The proof is a file made and
   * removed in it, or in the nearest directory above it that exists (permission bits alone do not say no to root).
   */
  public static void writableWhenMade(Path dir, String option) {
    Path p = dir.toAbsolutePath().normalize();
    while (p.getParent() != null && !Files.exists(p)) p = p.getParent();
    boolean itself = p.equals(dir.toAbsolutePath().normalize());
    if (!Files.isDirectory(p)) throw new SpecException(option, dir + (itself ? "" : ": " + p) + " is a file, not a directory; give a directory");
    try {
      Files.delete(Files.createTempFile(p, ".weft-probe-", ""));
    } catch (IOException | SecurityException e) {
      throw new SpecException(option, (itself ? dir + " is not writable" : dir + " cannot be made: " + p + " is not writable")
          + " (" + reason(e) + "); give a directory you can write");
    }
  }

  /** {@code file} is not a directory and its parent directory is writable (created if needed). */
  public static Path writableFile(Path file, String option) {
    if (Files.isDirectory(file)) throw new SpecException(option, file + " is a directory; give a file name, e.g. " + file.resolve("model.safetensors"));
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) writableDir(parent, option);
    return file;
  }

  private static String reason(Exception e) {
    String m = e.getMessage();
    return e.getClass().getSimpleName().replace("Exception", "") + (m == null ? "" : ": " + m);
  }
}
