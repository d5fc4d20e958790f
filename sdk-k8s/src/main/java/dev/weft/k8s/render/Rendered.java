package dev.weft.k8s.render;

import dev.weft.k8s.yaml.Manifest;
import java.util.List;

/** What one render produced, in apply order (ConfigMap first, the job object last but one or two). */
public record Rendered(String namespace, List<Manifest> manifests) {
  public Rendered {
    manifests = List.copyOf(manifests);
  }

  public Manifest only(String kind) {
    List<Manifest> m = manifests.stream().filter(x -> x.kind().equals(kind)).toList();
    if (m.size() != 1) throw new IllegalStateException("expected one " + kind + ", found " + m.size());
    return m.get(0);
  }

  public boolean has(String kind) { return manifests.stream().anyMatch(x -> x.kind().equals(kind)); }
}
