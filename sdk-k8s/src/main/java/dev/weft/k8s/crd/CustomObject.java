package dev.weft.k8s.crd;

import io.fabric8.kubernetes.api.model.ObjectMeta;

/** A typed custom resource: our own record per CRD kind, serialised as-is. */
public interface CustomObject {
  String apiVersion();

  String kind();

  ObjectMeta metadata();
}
