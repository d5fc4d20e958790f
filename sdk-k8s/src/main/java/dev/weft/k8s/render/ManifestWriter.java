package dev.weft.k8s.render;

import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Writes a render as one YAML file per object plus a {@code kustomization.yaml} listing them. */
public final class ManifestWriter {
  private ManifestWriter() {}

  /** Returns the files written, kustomization.yaml last. */
  public static List<Path> write(Rendered r, Path dir) {
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new dev.weft.spec.SpecException("-o", dir + " is a file, not a directory; give a directory for the manifests");
    }
    try {
      Files.createDirectories(dir);
      List<Path> files = new ArrayList<>();
      for (Manifest m : r.manifests()) {
        Path f = dir.resolve(m.fileName());
        Files.writeString(f, m.yaml());
        files.add(f);
      }
      Path k = dir.resolve("kustomization.yaml");
      Files.writeString(k, Yaml.write(kustomization(r)));
      files.add(k);
      return files;
    } catch (java.nio.file.FileAlreadyExistsException e) { // a file where one of its parent directories goes
      throw new dev.weft.spec.SpecException("-o", "cannot make " + dir + ": " + e.getFile() + " is a file; give a directory for the manifests");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write manifests to " + dir + ": " + e.getMessage(), e);
    }
  }

  public static Map<String, Object> kustomization(Rendered r) {
    Map<String, Object> k = new LinkedHashMap<>();
    k.put("apiVersion", "kustomize.config.k8s.io/v1beta1");
    k.put("kind", "Kustomization");
    k.put("namespace", r.namespace());
    k.put("resources", r.manifests().stream().map(Manifest::fileName).toList());
    return k;
  }

  /** All objects as one multi-document YAML stream (for stdout). */
  public static String stream(Rendered r) {
    StringBuilder sb = new StringBuilder();
    for (Manifest m : r.manifests()) sb.append("---\n").append(m.yaml());
    return sb.toString();
  }
}
