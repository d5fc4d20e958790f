package dev.weft.launch;

import dev.weft.spec.SpecException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A run directory belongs to the run that writes it: a lock on {@code RUN_DIR/.lock} held for the run's life and
 * released when it ends (or its process dies), so two runs started into one directory cannot interleave spec.yaml,
 * metrics and checkpoints. The processes of one multi-node run may share a directory (the agents of one elastic
 * run on one host, or on a shared file system): they name the same {@code run} and the later ones join as members.
 */
public final class RunDirLock implements AutoCloseable {
  public static final String FILE = ".lock";
  private static final long READ_OWNER_MS = 2000;

  private final FileChannel channel; // null for a member: the owner holds the lock
  private final FileLock lock;

  private RunDirLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks {@code dir} (created if needed) for this process. {@code run}: the identity this process shares the
   * directory under (an elastic run's id and endpoint), or null when no other process may use it. A directory held
   * by another run is refused in one line naming {@code option}, the directory and the owner's pid (exit 2).
   */
  public static RunDirLock acquire(Path dir, String run, String option) {
    Path file = dir.resolve(FILE);
    FileChannel ch = null;
    try {
      Files.createDirectories(dir);
      ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = ch.tryLock();
      } catch (OverlappingFileLockException thisJvm) {
        lock = null; // this JVM already runs a run there
      }
      if (lock != null) {
        ch.truncate(0);
        ch.write(ByteBuffer.wrap(Owner.line(ProcessHandle.current().pid(), run).getBytes(StandardCharsets.UTF_8)), 0);
        ch.force(false);
        return new RunDirLock(ch, lock);
      }
      ch.close();
      ch = null;
      Owner owner = readOwner(file);
      if (run != null && run.equals(owner.run())) return new RunDirLock(null, null);
      throw new SpecException(option, dir + " is in use by another run (pid " + (owner.pid() < 0 ? "unknown" : owner.pid())
          + (owner.run() == null ? "" : ", " + owner.run()) + "); wait for it to end, stop it, or give another " + option);
    } catch (IOException e) {
      closeQuietly(ch);
      throw new UncheckedIOException("cannot lock the run directory " + dir + " (" + file + "); choose another " + option, e);
    }
  }

  /** The owner writes its line right after taking the lock: wait briefly for it. */
  private static Owner readOwner(Path file) throws IOException {
    long deadline = System.nanoTime() + READ_OWNER_MS * 1_000_000;
    Owner o = Owner.parse(Files.readString(file, StandardCharsets.UTF_8));
    while (o.pid() < 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      o = Owner.parse(Files.readString(file, StandardCharsets.UTF_8));
    }
    return o;
  }

  /** Whether this process holds the lock (false for a member of a run that another process of it owns). */
  public boolean owner() { return lock != null; }

  @Override
  public void close() {
    if (lock == null) return;
    try {
      lock.release();
    } catch (IOException ignored) {
      // the channel's close below releases it too
    }
    closeQuietly(channel);
  }

  private static void closeQuietly(FileChannel ch) {
    if (ch == null) return;
    try {
      ch.close();
    } catch (IOException ignored) {
      // nothing held any more
    }
  }

  /** What {@code .lock} says: {@code pid=N run=...}; pid -1 while not yet written. */
  record Owner(long pid, String run) {
    static String line(long pid, String run) { return "pid=" + pid + (run == null ? "" : " run=" + run) + "\n"; }

    static Owner parse(String text) {
      String t = text.strip();
      if (!t.startsWith("pid=")) return new Owner(-1, null);
      int sp = t.indexOf(' ');
      long pid;
      try {
        pid = Long.parseLong(sp < 0 ? t.substring(4) : t.substring(4, sp));
      } catch (NumberFormatException e) {
        return new Owner(-1, null);
      }
      String run = sp >= 0 && t.startsWith("run=", sp + 1) ? t.substring(sp + 5) : null;
      return new Owner(pid, run);
    }
  }
}
