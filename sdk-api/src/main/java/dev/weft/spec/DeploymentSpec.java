package dev.weft.spec;

import java.util.Map;

/**
 * Where the job runs when it leaves this machine (read by the optional Kubernetes module; ignored
 * by local runs). {@code nodes} is a count ("2") or an elastic range ("1:4").
 */
public record DeploymentSpec(String image, String namespace, String nodes, int procsPerNode, int gpusPerNode,
                             Map<String, String> env) {
  public DeploymentSpec {
    env = env == null ? Map.of() : Map.copyOf(env);
  }
}
