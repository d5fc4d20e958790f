package dev.weft.util;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.jar.JarEntry;
import java.util.stream.Stream;
import org.bytedeco.javacpp.Loader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads libtorch with its extraction into JavaCPP's cache guarded by a file lock. With a cold cache
 * (a fresh pod's scratch volume, a new WEFT_CACHE_DIR) ranks started together would otherwise extract the same
 * libraries at once, and one maps a file the other is still rewriting (SIGBUS in the dynamic loader). Once one
 * process has loaded it, a marker in the cache lets every later one load without the lock (in parallel). Workers load
 * it first thing; of the launchers only an elastic agent does, for its c10d store (libtorch's TCPStore), which
 * several agents sharing one cache (hosts on one machine, a shared home) would otherwise extract at once.
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
      if (lock != null) dropIncomplete(dir);
      loadNow();
      if (lock != null) created(marker);
    } catch (IOException e) {
      log.debug("no extraction lock in {} ({}): loading without it", dir, e.getMessage());
      loadNow();
    }
  }

  /**
   * Deletes cached libraries whose size is not their jar entry's. JavaCPP extracts in place and trusts a file that exists, so
   * one extraction cut short (a Ctrl-C, a killed pod, a test that stops its processes) would otherwise leave a
   * truncated libtorch that crashes every later process with SIGBUS until someone deletes the cache by hand.
   */
  static int dropIncomplete(Path dir) {
    int dropped = 0;
    try (Stream<Path> jars = Files.list(dir)) {
      for (Path jar : jars.filter(j -> j.getFileName().toString().endsWith(".jar") && Files.isDirectory(j)).toList()) {
        try (Stream<Path> files = Files.walk(jar)) {
          for (Path f : files.filter(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)).toList()) {
            long want = entrySize(jar.getFileName().toString(), jar.relativize(f).toString().replace('\\', '/')), have = Files.size(f);
            if (want >= 0 && have != want) {
              log.warn("{} in JavaCPP's cache is {} of {} bytes (an extraction cut short): extracting it again", f, have, want);
              Files.delete(f);
              dropped++;
            }
          }
        }
      }
    } catch (IOException | UncheckedIOException e) {
      log.debug("cannot check JavaCPP's cache {}: {}", dir, e.getMessage());
    }
    return dropped;
  }

  /** The size of {@code entry} in the jar named {@code jarName} on the class path, or -1 when it is not there. */
  private static long entrySize(String jarName, String entry) throws IOException {
    URL url = NativeCache.class.getClassLoader().getResource(entry);
    if (url == null || !(url.openConnection() instanceof JarURLConnection c)) return -1;
    c.setUseCaches(false);
    if (!Path.of(c.getJarFileURL().getPath()).getFileName().toString().equals(jarName)) return -1;
    JarEntry e = c.getJarEntry();
    try {
      return e == null ? -1 : e.getSize();
    } finally {
      c.getJarFile().close();
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
