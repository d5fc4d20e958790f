package dev.weft.k8s;

import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.spec.K8sSpecLoader;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;

/** The test specs under src/test/resources/specs. */
public final class TestSpecs {
  private TestSpecs() {}

  public static Path path(String name) { return resource("specs/" + name); }

  /** A file under src/test/resources. */
  public static Path resource(String relative) {
    try {
      return Path.of(TestSpecs.class.getResource("/" + relative).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  public static K8sSpec tiny(String... overrides) { return K8sSpecLoader.load(path("gpt-tiny.yaml"), List.of(overrides)); }

  /** The tiny spec made elastic: 1 to 4 nodes. */
  public static K8sSpec elastic(String... overrides) {
    String[] all = new String[overrides.length + 1];
    all[0] = "deployment.nodes=1:4";
    System.arraycopy(overrides, 0, all, 1, overrides.length);
    return tiny(all);
  }
}
