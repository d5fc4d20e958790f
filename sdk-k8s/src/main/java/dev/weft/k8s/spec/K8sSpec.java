package dev.weft.k8s.spec;

import dev.weft.spec.TrainingSpec;

/**
 * A validated training spec and its Kubernetes deployment, the input of every renderer.
 * {@code specYaml} is the merged spec tree the workers read (written from the tree, not the records,
 * so it binds back exactly as sdk-api reads it).
 */
public record K8sSpec(TrainingSpec spec, String specYaml, K8sDeployment deployment) {
  public String name() { return spec.name(); }

  public String namespace() { return deployment.namespace(); }

  public NodeRange nodes() { return deployment.nodeRange(); }

  public boolean elastic() { return nodes().elastic(); }

  public int procsPerNode() { return deployment.procsPerNode(); }

  /** Processes in a full-size run: max nodes × processes per node. */
  public int maxWorldSize() { return nodes().max() * procsPerNode(); }

  /** The metrics port the workers serve on (local rank r on port + r); 9090 when the spec leaves it off. */
  public int metricsPort() { return spec.metrics().port() > 0 ? spec.metrics().port() : 9090; }
}
