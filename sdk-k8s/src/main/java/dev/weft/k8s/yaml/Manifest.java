package dev.weft.k8s.yaml;

import dev.weft.k8s.crd.CustomObject;
import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * One Kubernetes object ready to write or send: a typed fabric8 model or one of our CRD records. {@code comment}
 * (or null) is written above it as YAML comment lines, for a reader of the files; the cluster never sees it.
 */
public record Manifest(String apiVersion, String kind, String name, Object body, String comment) {
  public Manifest(String apiVersion, String kind, String name, Object body) { this(apiVersion, kind, name, body, null); }

  public Manifest withComment(String text) { return new Manifest(apiVersion, kind, name, body, text); }

  /** The object as YAML, its comment first. */
  public String yaml() {
    StringBuilder sb = new StringBuilder();
    if (comment != null) comment.lines().forEach(l -> sb.append("# ").append(l).append('\n'));
    return sb.append(Yaml.write(body)).toString();
  }

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
