package dev.weft.k8s.yaml;

import dev.weft.k8s.crd.CustomObject;
import io.fabric8.kubernetes.api.model.HasMetadata;

/** One Kubernetes object ready to write or send: a typed fabric8 model or one of our CRD records. */
public record Manifest(String apiVersion, String kind, String name, Object body) {
  public static Manifest of(HasMetadata o) {
    return new Manifest(o.getApiVersion(), o.getKind(), o.getMetadata().getName(), o);
  }

  public static Manifest of(CustomObject o) {
    return new Manifest(o.apiVersion(), o.kind(), o.metadata().getName(), o);
  }

  /** The API group ("" for the core group). */
  public String group() {
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? "" : apiVersion.substring(0, slash);
  }

  /** The file this object is written to: {@code <kind>-<name>.yaml}, lowercase. */
  public String fileName() { return kind.toLowerCase() + "-" + name + ".yaml"; }
}
