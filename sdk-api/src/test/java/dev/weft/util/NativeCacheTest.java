package dev.weft.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.javacpp.Loader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cache left by an extraction cut short is repaired before libtorch is loaded from it. */
class NativeCacheTest {
  @Test
  void aTruncatedLibraryIsDroppedAndACompleteOneKept(@TempDir Path cache) throws Exception {
    String dir = "org/bytedeco/pytorch/" + Loader.getPlatform() + "/";
    URL small = NativeCacheTest.class.getClassLoader().getResource(dir + "libtorch.so");
    URL other = NativeCacheTest.class.getClassLoader().getResource(dir + "libc10.so");
    assumeTrue(small != null && other != null, "the pytorch presets for " + Loader.getPlatform() + " hold libtorch.so and libc10.so");
    String jar = Path.of(((JarURLConnection) small.openConnection()).getJarFileURL().getPath()).getFileName().toString();
    Path lib = Files.createDirectories(cache.resolve(jar).resolve(dir));
    byte[] whole;
    try (InputStream in = small.openStream()) {
      whole = in.readAllBytes();
    }
    Files.write(lib.resolve("libtorch.so"), java.util.Arrays.copyOf(whole, whole.length / 3)); // cut short
    try (InputStream in = other.openStream()) {
      Files.copy(in, lib.resolve("libc10.so")); // complete
    }
    Files.writeString(lib.resolve("not-from-a-jar.txt"), "kept");
    Files.createSymbolicLink(lib.resolve("libc10.so.link"), lib.resolve("libc10.so"));

    assertThat(NativeCache.dropIncomplete(cache)).isEqualTo(1);
    assertThat(lib.resolve("libtorch.so")).doesNotExist();
    assertThat(lib.resolve("libc10.so")).exists();
    assertThat(lib.resolve("not-from-a-jar.txt")).exists();
    assertThat(NativeCache.dropIncomplete(cache)).as("nothing left to repair").isZero();
  }
}
