package dev.weft.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.render.WorkerEnv;
import dev.weft.k8s.yaml.Yaml;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The environment each worker pod of a rendered run would see: the manifest's own env entries, resolved
 * per pod, overlaid with what the target's controller injects (as documented in docs/kubernetes.md):
 * <ul>
 *   <li>Indexed Job (and every Job a JobSet or TrainJob creates): {@code JOB_COMPLETION_INDEX} and the
 *       {@code batch.kubernetes.io/job-completion-index} annotation; hostname {@code JOB-INDEX}.</li>
 *   <li>PyTorchJob (training-operator 1.9): MASTER_ADDR/PORT, PET_MASTER_ADDR/PORT, RANK, PET_NODE_RANK,
 *       WORLD_SIZE, PET_NNODES, PET_NPROC_PER_NODE; elastic: PET_RDZV_*, PET_NNODES=MIN:MAX, PET_MAX_RESTARTS.</li>
 *   <li>TrainJob (Trainer 2.3 torch plugin): PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK,
 *       PET_MASTER_ADDR = TRAINJOB-node-0-0.TRAINJOB, PET_MASTER_PORT = 29500.</li>
 * </ul>
 * The downward API's {@code status.podIP} resolves to each pod's address ({@link #pods(Rendered, Target, List)}).
 */
public final class PodEnvironment {
  /** One pod: its hostname, DNS subdomain (may be null), environment and its container's command line. */
  public record Pod(String hostname, String subdomain, Map<String, String> env, List<String> command) {
    public String fqdn() { return subdomain == null ? hostname : hostname + "." + subdomain; }
  }

  /** Trainer v2.0.0-rc.0 … v2.3.0 torch plugin: a constant, whatever the runtime says (stated here, not taken from the renderer). */
  public static final int TRAINER_MASTER_PORT = 29500;
  private static final String POD_IP_FIELD = "status.podIP";
  private static final String POD_IP_UNSET = "<pod ip>";

  /** What a pod's variable from Secret {@code secret}, key {@code key} holds here: a placeholder naming it. */
  public static String secretValue(String secret, String key) { return "<secret " + secret + "/" + key + ">"; }

  private PodEnvironment() {}

  /** Pods with addresses 10.0.0.1, 10.0.0.2, ... in pod order. */
  public static List<Pod> pods(Rendered r, Target t) {
    List<String> ips = new ArrayList<>();
    for (int i = 0; i < 256; i++) ips.add("10.0.0." + (i + 1));
    return pods(r, t, ips);
  }

  /** Pods in rank order (Master then Workers; completion index); pod i's {@code status.podIP} is {@code podIps.get(i)}. */
  public static List<Pod> pods(Rendered r, Target t, List<String> podIps) {
    List<Pod> pods = withoutIps(r, t);
    List<Pod> out = new ArrayList<>();
    for (int i = 0; i < pods.size(); i++) {
      Map<String, String> env = new LinkedHashMap<>(pods.get(i).env());
      String ip = podIps.get(i);
      env.replaceAll((k, v) -> POD_IP_UNSET.equals(v) ? ip : v);
      out.add(new Pod(pods.get(i).hostname(), pods.get(i).subdomain(), env, pods.get(i).command()));
    }
    return out;
  }

  /**
   * The pods of {@code r} placed on {@code hosts} (pod i on host i, its {@code status.podIP} that host's
   * address), each pod's hostname (and FQDN, with a subdomain) resolving to it on every host.
   */
  public static List<Pod> onHosts(Rendered r, Target t, dev.weft.testing.NetHosts hosts) {
    List<String> ips = new ArrayList<>();
    for (int i = 0; i < hosts.size(); i++) ips.add(hosts.address(i));
    List<Pod> pods = pods(r, t, ips);
    if (pods.size() != hosts.size()) throw new AssertionError(pods.size() + " pods rendered for " + hosts.size() + " hosts");
    for (int i = 0; i < pods.size(); i++) {
      hosts.resolve(pods.get(i).hostname(), i);
      if (pods.get(i).subdomain() != null) hosts.resolve(pods.get(i).fqdn(), i);
    }
    return pods;
  }

  /** The spec the rendered ConfigMap carries (the pods' /etc/weft/spec.yaml). */
  public static String specYaml(Rendered r) { return tree(r, "ConfigMap").path("data").path("spec.yaml").asText(); }

  private static List<Pod> withoutIps(Rendered r, Target t) {
    return switch (t) {
      case JOB -> job(tree(r, "Job"));
      case JOBSET -> jobSet(tree(r, "JobSet"));
      case PYTORCHJOB -> pytorchJob(tree(r, "PyTorchJob"));
      case TRAINJOB -> trainJob(tree(r, "TrainJob"), tree(r, "TrainingRuntime"));
    };
  }

  private static JsonNode tree(Rendered r, String kind) { return Yaml.tree(r.only(kind).body()); }

  private static List<Pod> job(JsonNode job) {
    return indexedPods(job.path("metadata").path("name").asText(), job.path("spec"),
        job.path("spec").path("template").path("spec").path("subdomain").asText(null), Map.of());
  }

  private static List<Pod> jobSet(JsonNode js) {
    String name = js.path("metadata").path("name").asText();
    List<Pod> pods = new ArrayList<>();
    String subdomain = js.path("spec").path("network").path("subdomain").asText(name);
    for (JsonNode rj : js.path("spec").path("replicatedJobs")) {
      for (int j = 0; j < rj.path("replicas").asInt(1); j++) {
        pods.addAll(indexedPods(name + "-" + rj.path("name").asText() + "-" + j, rj.path("template").path("spec"), subdomain, Map.of()));
      }
    }
    return pods;
  }

  /**
   * What the Trainer's TrainJobStatus plugin adds to every container of the trainer ancestor when its feature gate is on
   * (kubeflow/trainer {@code pkg/runtime/framework/plugins/trainjobstatus/trainjobstatus.go}, {@code createEnvVars} and
   * {@code createTokenVolume}): {@code KUBEFLOW_TRAINER_SERVER_URL} = {@code https://SERVICE.OPERATOR_NS.svc:PORT} +
   * {@code /apis/trainer.kubeflow.org/v1alpha1/namespaces/NS/trainjobs/NAME/status} (service
   * {@code kubeflow-trainer-controller-manager}, port 10443 by {@code pkg/apis/config/v1alpha1/defaults.go}, the controller
   * in {@code kubeflow-system} as installed by default), and {@code _CA_CERT} / {@code _TOKEN} naming {@code ca.crt} and
   * {@code token} of a projected volume mounted at {@code /var/run/secrets/kubeflow/trainer}. A test cannot mount there,
   * so that volume's files are at {@code mountedAt} instead; the rest is the upstream values.
   */
  static List<Pod> withTrainJobStatus(List<Pod> pods, String namespace, String trainJob, java.nio.file.Path mountedAt) {
    String url = "https://" + STATUS_SERVICE + ":" + STATUS_PORT + "/apis/trainer.kubeflow.org/v1alpha1/namespaces/" + namespace
        + "/trainjobs/" + trainJob + "/status";
    List<Pod> out = new ArrayList<>();
    for (Pod p : pods) {
      Map<String, String> env = new LinkedHashMap<>(p.env());
      env.put("KUBEFLOW_TRAINER_SERVER_URL", url);
      env.put("KUBEFLOW_TRAINER_SERVER_CA_CERT", mountedAt.resolve("ca.crt").toString());
      env.put("KUBEFLOW_TRAINER_SERVER_TOKEN", mountedAt.resolve("token").toString());
      out.add(new Pod(p.hostname(), p.subdomain(), env, p.command()));
    }
    return out;
  }

  /** The Trainer controller's Service, as the TrainJobStatus plugin names it in the URL it injects. */
  static final String STATUS_SERVICE = "kubeflow-trainer-controller-manager.kubeflow-system.svc";
  static final int STATUS_PORT = 10443;

  /** The {@code node} pods of TrainJob {@code tj} on {@code runtime}, with the env Trainer v2.3's torch plugin injects. */
  static List<Pod> trainJob(JsonNode tj, JsonNode runtime) {
    String name = tj.path("metadata").path("name").asText();
    JsonNode trainer = tj.path("spec").path("trainer");
    int nodes = trainer.path("numNodes").asInt(runtime.path("spec").path("mlPolicy").path("numNodes").asInt(1));
    List<Pod> pods = new ArrayList<>();
    for (JsonNode rj : runtime.path("spec").path("template").path("spec").path("replicatedJobs")) {
      if (!rj.path("name").asText().equals("node")) continue;
      JsonNode jobSpec = rj.path("template").path("spec").deepCopy();
      ((com.fasterxml.jackson.databind.node.ObjectNode) jobSpec).put("completions", nodes);
      for (Pod p : indexedPods(name + "-node-0", jobSpec, name, Map.of())) {
        Map<String, String> env = new LinkedHashMap<>(p.env());
        env.put("PET_NNODES", Integer.toString(nodes));
        // torch.go: the TrainJob's numProcPerNode, else the runtime's torch.numProcPerNode (absent from the v2.3 API), else
        // "auto"; resolved to a count only when the TrainJob sets resourcesPerNode (getNumProcPerNode).
        env.put("PET_NPROC_PER_NODE", trainer.path("numProcPerNode").asText("auto"));
        env.put("PET_NODE_RANK", env.get("JOB_COMPLETION_INDEX"));
        env.put("PET_MASTER_ADDR", name + "-node-0-0." + name);
        env.put("PET_MASTER_PORT", Integer.toString(TRAINER_MASTER_PORT));
        for (JsonNode e : trainer.path("env")) env.put(e.path("name").asText(), e.path("value").asText());
        pods.add(new Pod(p.hostname(), p.subdomain(), env, p.command()));
      }
    }
    return pods;
  }

  private static List<Pod> pytorchJob(JsonNode job) {
    String name = job.path("metadata").path("name").asText();
    JsonNode spec = job.path("spec");
    JsonNode replicas = spec.path("pytorchReplicaSpecs");
    boolean hasMaster = replicas.has("Master");
    int total = replicas.path("Master").path("replicas").asInt(0) + replicas.path("Worker").path("replicas").asInt(0);
    int nproc = Integer.parseInt(spec.path("nprocPerNode").asText("1"));
    JsonNode elastic = spec.path("elasticPolicy");
    String masterHost = hasMaster ? name + "-master-0" : name + "-worker-0";
    int masterPort = port(replicas.path(hasMaster ? "Master" : "Worker"), "pytorchjob-port", 23456);
    List<Pod> pods = new ArrayList<>();
    int rank = 0;
    for (String type : List.of("Master", "Worker")) {
      JsonNode rs = replicas.path(type);
      for (int i = 0; i < rs.path("replicas").asInt(0); i++, rank++) {
        String host = name + "-" + type.toLowerCase() + "-" + i;
        Map<String, String> env = containerEnv(rs.path("template"), Map.of("metadata.name", host));
        env.put("PYTHONUNBUFFERED", "1");
        if (hasMaster) {
          env.put("MASTER_PORT", Integer.toString(masterPort));
          env.put("PET_MASTER_PORT", Integer.toString(masterPort));
          env.put("MASTER_ADDR", masterHost);
          env.put("PET_MASTER_ADDR", masterHost);
          env.put("RANK", Integer.toString(rank));
          env.put("PET_NODE_RANK", Integer.toString(rank));
          env.put("WORLD_SIZE", Integer.toString(total * nproc));
          env.put("PET_NNODES", Integer.toString(total));
        }
        if (!elastic.isMissingNode()) {
          env.put("PET_RDZV_BACKEND", elastic.path("rdzvBackend").asText("c10d"));
          env.put("PET_RDZV_ENDPOINT", elastic.path("rdzvHost").asText(name + "-worker-0") + ":" + elastic.path("rdzvPort").asInt(masterPort));
          env.put("PET_RDZV_ID", name);
          env.put("PET_NNODES", elastic.path("minReplicas").asInt() + ":" + elastic.path("maxReplicas").asInt());
          env.put("PET_MAX_RESTARTS", elastic.path("maxRestarts").asText());
        }
        env.put("PET_NPROC_PER_NODE", Integer.toString(nproc));
        pods.add(new Pod(host, null, env, command(rs.path("template"))));
      }
    }
    return pods;
  }

  private static int port(JsonNode replica, String name, int dflt) {
    for (JsonNode c : replica.path("template").path("spec").path("containers")) {
      for (JsonNode p : c.path("ports")) if (p.path("name").asText().equals(name)) return p.path("containerPort").asInt();
    }
    return dflt;
  }

  /** Pods of one Indexed Job named {@code jobName}: hostname JOB-i, JOB_COMPLETION_INDEX=i. */
  private static List<Pod> indexedPods(String jobName, JsonNode jobSpec, String subdomain, Map<String, String> extra) {
    List<Pod> pods = new ArrayList<>();
    if (!"Indexed".equals(jobSpec.path("completionMode").asText("Indexed"))) throw new AssertionError("not an Indexed Job");
    for (int i = 0; i < jobSpec.path("completions").asInt(1); i++) {
      String host = jobName + "-" + i;
      Map<String, String> fields = new LinkedHashMap<>(extra);
      fields.put("metadata.annotations['" + WorkerEnv.COMPLETION_INDEX_ANNOTATION + "']", Integer.toString(i));
      fields.put("metadata.name", host);
      Map<String, String> env = containerEnv(jobSpec.path("template"), fields);
      env.put("JOB_COMPLETION_INDEX", Integer.toString(i));
      pods.add(new Pod(host, subdomain, env, command(jobSpec.path("template"))));
    }
    return pods;
  }

  /** The first container's command and args. */
  private static List<String> command(JsonNode podTemplate) {
    List<String> cmd = new ArrayList<>();
    JsonNode c = podTemplate.path("spec").path("containers").path(0);
    for (JsonNode a : c.path("command")) cmd.add(a.asText());
    for (JsonNode a : c.path("args")) cmd.add(a.asText());
    return cmd;
  }

  /** The first container's env with fieldRefs resolved from {@code fields}; later duplicates win, as in Kubernetes. */
  private static Map<String, String> containerEnv(JsonNode podTemplate, Map<String, String> fields) {
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode e : podTemplate.path("spec").path("containers").path(0).path("env")) {
      String name = e.path("name").asText();
      if (e.has("value")) {
        env.put(name, e.path("value").asText());
      } else if (e.path("valueFrom").has("secretKeyRef")) {
        JsonNode ref = e.path("valueFrom").path("secretKeyRef");
        env.put(name, secretValue(ref.path("name").asText(), ref.path("key").asText()));
      } else {
        String path = e.path("valueFrom").path("fieldRef").path("fieldPath").asText();
        if (path.equals(POD_IP_FIELD)) {
          env.put(name, POD_IP_UNSET);
          continue;
        }
        if (!fields.containsKey(path)) throw new AssertionError(name + " reads " + path + ", which no pod of this target has");
        env.put(name, fields.get(path));
      }
    }
    return env;
  }
}
