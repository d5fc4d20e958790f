package dev.weft.k8s.render;

import dev.weft.k8s.yaml.Manifest;
import java.util.List;

/**
 * What one render produced, in apply order (ConfigMap first, the job object last but one or two), and the
 * one-line warnings about the spec that the commands print ("deployment.FIELD: what happens and what to change").
 */
public record Rendered(String namespace, List<Manifest> manifests, List<String> warnings) {
  public Rendered {
    manifests = List.copyOf(manifests);
    warnings = List.copyOf(warnings);
  }

  public Rendered(String namespace, List<Manifest> manifests) { this(namespace, manifests, List.of()); }

  /** The same render with other manifests (the ones a cluster serves), its warnings kept. */
  public Rendered withManifests(List<Manifest> other) { return new Rendered(namespace, other, warnings); }

  public Manifest only(String kind) {
    List<Manifest> m = manifests.stream().filter(x -> x.kind().equals(kind)).toList();
    if (m.size() != 1) throw new IllegalStateException("expected one " + kind + ", found " + m.size());
    return m.get(0);
  }

  public boolean has(String kind) { return manifests.stream().anyMatch(x -> x.kind().equals(kind)); }
}
