package dev.weft.dist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * An image tarball (docker-save layout, as {@code jib:buildTar} writes it, or an OCI layout) unpacked
 * into a root file system the way a container runtime stacks it: layers in order, each layer's whiteouts
 * ({@code .wh.NAME} deletes NAME, {@code .wh..wh..opq} empties its directory) applied to the layers
 * below before its own files land. Needs root (ownership and device files are kept).
 *
 * @param root the unpacked root file system
 * @param env the image config's environment, in order
 * @param user the image config's user ("1000:1000"), or empty
 * @param workingDir the image config's working directory, or empty
 */
public record ImageRoot(Path root, Map<String, String> env, String user, String workingDir) {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String WHITEOUT = ".wh.";
  private static final String OPAQUE = ".wh..wh..opq";

  /** Unpacks {@code tarball} into {@code dir}/root (its blobs go to {@code dir}/image, then away). */
  public static ImageRoot unpack(Path tarball, Path dir) throws IOException {
    Path image = Files.createDirectories(dir.resolve("image"));
    Path root = Files.createDirectories(dir.resolve("root"));
    sh(List.of("tar", "-xf", tarball.toString(), "-C", image.toString()));
    Layout l = Files.exists(image.resolve("manifest.json")) ? dockerLayout(image) : ociLayout(image);
    for (Path layer : l.layers) apply(layer, root);
    JsonNode c = l.config.path("config");
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode e : c.path("Env")) {
      String kv = e.asText();
      int eq = kv.indexOf('=');
      env.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    deleteTree(image);
    return new ImageRoot(root, env, c.path("User").asText(""), c.path("WorkingDir").asText(""));
  }

  private record Layout(JsonNode config, List<Path> layers) {}

  private static Layout dockerLayout(Path image) throws IOException {
    JsonNode m = JSON.readTree(image.resolve("manifest.json").toFile()).path(0);
    List<Path> layers = new ArrayList<>();
    for (JsonNode l : m.path("Layers")) layers.add(image.resolve(l.asText()));
    return new Layout(JSON.readTree(image.resolve(m.path("Config").asText()).toFile()), layers);
  }

  private static Layout ociLayout(Path image) throws IOException {
    JsonNode index = JSON.readTree(image.resolve("index.json").toFile());
    JsonNode m = JSON.readTree(blob(image, index.path("manifests").path(0).path("digest").asText()).toFile());
    List<Path> layers = new ArrayList<>();
    for (JsonNode l : m.path("layers")) layers.add(blob(image, l.path("digest").asText()));
    return new Layout(JSON.readTree(blob(image, m.path("config").path("digest").asText()).toFile()), layers);
  }

  private static Path blob(Path image, String digest) {
    String[] algHex = digest.split(":", 2);
    return image.resolve("blobs").resolve(algHex[0]).resolve(algHex[1]);
  }

  /** One layer: its whiteouts first (they hide what lies below), then its files. */
  static void apply(Path layer, Path root) throws IOException {
    for (String entry : sh(List.of("tar", "-tf", layer.toString())).split("\n")) {
      String e = entry.startsWith("./") ? entry.substring(2) : entry;
      Path p = Path.of(e);
      String name = p.getFileName() == null ? "" : p.getFileName().toString();
      if (!name.startsWith(WHITEOUT)) continue;
      Path parent = p.getParent() == null ? root : root.resolve(p.getParent().toString());
      if (name.equals(OPAQUE)) {
        if (Files.isDirectory(parent)) try (Stream<Path> s = Files.list(parent)) { for (Path c : s.toList()) deleteTree(c); }
      } else {
        deleteTree(parent.resolve(name.substring(WHITEOUT.length())));
      }
    }
    sh(List.of("tar", "-xf", layer.toString(), "-C", root.toString(), "--numeric-owner", "--same-permissions",
        "--exclude=" + WHITEOUT + "*"));
  }

  static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) return;
    if (!Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      Files.delete(p);
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(q);
    }
  }

  /** Runs a command (5 min deadline); its stdout, or an exception with its output. */
  static String sh(List<String> cmd) throws IOException {
    Path err = Files.createTempFile("weft-sh", ".err");
    try {
      Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", cmd) + " did not finish in 5 min");
      }
      if (p.exitValue() != 0) throw new IOException(String.join(" ", cmd) + " failed: " + Files.readString(err));
      return new String(out, StandardCharsets.UTF_8);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + String.join(" ", cmd), e);
    } finally {
      Files.deleteIfExists(err);
    }
  }
}
