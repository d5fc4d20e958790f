package dev.weft.launch;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.bytedeco.javacpp.Loader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads libtorch in a worker with its extraction into JavaCPP's cache guarded by a file lock. With a cold cache
 * (a fresh pod's scratch volume, a new WEFT_CACHE_DIR) ranks started together would otherwise extract the same
 * libraries at once, and one maps a file the other is still rewriting (SIGBUS in the dynamic loader). Once one
 * process has loaded it, a marker in the cache lets every later one load without the lock (in parallel). The
 * launchers themselves never load libtorch (that cost ~1 s and ~300 MB in every launcher and agent).
 */
public final class NativeCache {
  private static final Logger log = LoggerFactory.getLogger(NativeCache.class);
  private static final Duration LOCK_WAIT = Duration.ofMinutes(5); // a cold extraction of ~450 MB on a slow disk
  private static volatile boolean loaded;

  private NativeCache() {}

  /** Loads libtorch (extracting it under the lock when this cache has not held it yet), at most once per JVM. */
  public static synchronized void load() {
    if (loaded) return;
    Path dir = cacheDir();
    Path marker = dir == null ? null : dir.resolve(".weft-extracted-" + version());
    if (marker == null || Files.exists(marker)) {
      loadNow();
      return;
    }
    try (FileChannel ch = FileChannel.open(dir.resolve(".weft-extract.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
         FileLock lock = lock(ch)) {
      loadNow();
      if (lock != null) created(marker);
    } catch (IOException e) {
      log.debug("no extraction lock in {} ({}): loading without it", dir, e.getMessage());
      loadNow();
    }
  }

  private static void loadNow() {
    Loader.load(org.bytedeco.pytorch.global.torch.class);
    loaded = true;
  }

  /** The lock, or null after the deadline (a stuck holder: loading anyway beats waiting forever). */
  private static FileLock lock(FileChannel ch) throws IOException {
    long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
    while (true) {
      FileLock l = ch.tryLock();
      if (l != null || System.nanoTime() > deadline) {
        if (l == null) log.warn("the libtorch extraction lock was held for {} s: loading without it", LOCK_WAIT.toSeconds());
        return l;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  private static Path cacheDir() {
    try {
      return Loader.getCacheDir().toPath();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The presets' jar name (version and platform): a new libtorch is extracted under the lock again. */
  private static String version() {
    var src = org.bytedeco.pytorch.global.torch.class.getProtectionDomain().getCodeSource();
    String jar = src == null ? "unknown" : Path.of(src.getLocation().getPath()).getFileName().toString();
    return (jar + "-" + Loader.getPlatform()).replaceAll("[^A-Za-z0-9._-]", "_");
  }

  private static void created(Path marker) {
    try {
      Files.createFile(marker);
    } catch (FileAlreadyExistsException ignored) {
      // another process's load wrote it first
    } catch (IOException e) {
      log.debug("cannot write {}: {}", marker, e.getMessage());
    }
  }
}
