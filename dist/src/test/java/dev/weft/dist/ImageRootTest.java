package dev.weft.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Layers stack as a container runtime stacks them: a later layer's whiteouts hide what lies below. */
class ImageRootTest {
  @TempDir Path dir;

  @Test
  void whiteoutsDeleteAndOpaqueDirectoriesHideTheLowerLayers() throws Exception {
    Path lower = layer("lower", List.of("a/x", "a/y", "d/z", "keep"));
    Path upper = layer("upper", List.of("a/.wh.x", "d/.wh..wh..opq", "d/w", ".wh.keep-not-there"));
    Path root = Files.createDirectories(dir.resolve("root"));
    ImageRoot.apply(lower, root);
    ImageRoot.apply(upper, root);
    assertThat(root.resolve("a/x")).doesNotExist();
    assertThat(root.resolve("a/y")).exists();
    assertThat(root.resolve("d/z")).as("hidden by the opaque marker").doesNotExist();
    assertThat(root.resolve("d/w")).as("the upper layer's own file").exists();
    assertThat(root.resolve("keep")).exists();
    assertThat(root.resolve("a/.wh.x")).as("markers are not files of the image").doesNotExist();
    assertThat(root.resolve("d/.wh..wh..opq")).doesNotExist();
  }

  /** A gzip layer holding empty files at {@code paths}. */
  private Path layer(String name, List<String> paths) throws Exception {
    Path src = Files.createDirectories(dir.resolve(name));
    for (String p : paths) {
      Files.createDirectories(src.resolve(p).getParent() == null ? src : src.resolve(p).getParent());
      Files.writeString(src.resolve(p), p);
    }
    Path tar = dir.resolve(name + ".tar.gz");
    ImageRoot.sh(List.of("tar", "-czf", tar.toString(), "-C", src.toString(), "."));
    return tar;
  }
}
