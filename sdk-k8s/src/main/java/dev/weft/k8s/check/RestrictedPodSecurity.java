package dev.weft.k8s.check;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The Pod Security Standard "restricted" (Kubernetes' PodSecurity admission, level restricted, version latest),
 * checked on a pod spec: for servers without that admission (it is 1.23+; the test server is 1.20) and for pod
 * templates inside custom resources, which the admission never sees. Baseline rules included: no host namespaces,
 * ports or paths, no privileged containers, no added capabilities beyond NET_BIND_SERVICE.
 */
public final class RestrictedPodSecurity {
  /** Volume types restricted allows. */
  static final Set<String> VOLUME_TYPES = Set.of("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
      "persistentVolumeClaim", "projected", "secret");
  static final Set<String> SECCOMP_TYPES = Set.of("RuntimeDefault", "Localhost");

  private RestrictedPodSecurity() {}

  /** What in {@code podSpec} breaks "restricted", one line each naming the container and field (empty = compliant). */
  public static List<String> violations(JsonNode podSpec) {
    List<String> out = new ArrayList<>();
    for (String host : List.of("hostNetwork", "hostPID", "hostIPC")) {
      if (podSpec.path(host).asBoolean(false)) out.add("spec." + host + " must be false");
    }
    for (JsonNode v : podSpec.path("volumes")) {
      v.fieldNames().forEachRemaining(f -> {
        if (!f.equals("name") && !VOLUME_TYPES.contains(f)) out.add("volume " + v.path("name").asText() + ": type " + f + " is not allowed");
      });
    }
    JsonNode pod = podSpec.path("securityContext");
    if (pod.path("runAsUser").isNumber() && pod.path("runAsUser").asLong() == 0) out.add("spec.securityContext.runAsUser must not be 0");
    for (String list : List.of("initContainers", "containers", "ephemeralContainers")) {
      for (JsonNode c : podSpec.path(list)) container(c, list, pod, out);
    }
    return out;
  }

  private static void container(JsonNode c, String list, JsonNode pod, List<String> out) {
    String where = list + "[" + c.path("name").asText() + "].securityContext";
    JsonNode sc = c.path("securityContext");
    if (sc.path("privileged").asBoolean(false)) out.add(where + ".privileged must be false");
    if (!sc.path("allowPrivilegeEscalation").isBoolean() || sc.path("allowPrivilegeEscalation").asBoolean()) {
      out.add(where + ".allowPrivilegeEscalation must be false");
    }
    boolean nonRoot = sc.has("runAsNonRoot") ? sc.path("runAsNonRoot").asBoolean(false) : pod.path("runAsNonRoot").asBoolean(false);
    if (!nonRoot) out.add(where + ".runAsNonRoot must be true (here or in the pod's securityContext)");
    if (sc.path("runAsUser").isNumber() && sc.path("runAsUser").asLong() == 0) out.add(where + ".runAsUser must not be 0");
    String seccomp = sc.path("seccompProfile").has("type") ? sc.path("seccompProfile").path("type").asText()
        : pod.path("seccompProfile").path("type").asText();
    if (!SECCOMP_TYPES.contains(seccomp)) out.add(where + ".seccompProfile.type must be RuntimeDefault or Localhost (here or in the pod's)");
    boolean dropsAll = false;
    for (JsonNode d : sc.path("capabilities").path("drop")) dropsAll |= d.asText().equals("ALL");
    if (!dropsAll) out.add(where + ".capabilities.drop must contain ALL");
    for (JsonNode a : sc.path("capabilities").path("add")) {
      if (!a.asText().equals("NET_BIND_SERVICE")) out.add(where + ".capabilities.add may hold only NET_BIND_SERVICE, not " + a.asText());
    }
    for (JsonNode p : c.path("ports")) {
      if (p.path("hostPort").asInt(0) != 0) out.add(list + "[" + c.path("name").asText() + "].ports: hostPort must be unset");
    }
  }
}
