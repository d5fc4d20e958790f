package dev.weft.util;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * A copy of a user's file is never readable by more people than the original: the copy's POSIX mode (what the umask
 * gave it) is cut to the source's. On a file system without POSIX modes there is nothing to narrow.
 */
public final class FileModes {
  private FileModes() {}

  /** {@code file}'s POSIX permissions (links not followed), or empty where the file system has none. */
  public static Optional<Set<PosixFilePermission>> of(Path file) throws IOException {
    PosixFileAttributeView v = Files.getFileAttributeView(file, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    return v == null ? Optional.empty() : Optional.of(v.readAttributes().permissions());
  }

  /** Takes from {@code copy} every permission {@code source} lacks; call it before the copy holds any byte. */
  public static void narrow(Path copy, Optional<Set<PosixFilePermission>> source) throws IOException {
    if (source.isEmpty()) return;
    Optional<Set<PosixFilePermission>> now = of(copy);
    if (now.isEmpty()) return;
    Set<PosixFilePermission> cut = now.get().isEmpty() ? EnumSet.noneOf(PosixFilePermission.class) : EnumSet.copyOf(now.get());
    cut.retainAll(source.get());
    if (!cut.equals(now.get())) Files.setPosixFilePermissions(copy, cut);
  }
}
