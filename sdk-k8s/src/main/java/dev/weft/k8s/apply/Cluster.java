package dev.weft.k8s.apply;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.k8s.check.ManifestCheck;
import dev.weft.k8s.compat.ApiCompat;
import dev.weft.k8s.render.Labels;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * The edge where Weft meets a cluster: server-side apply, status, logs and delete of one run's objects,
 * found by the {@code weft.dev/job} label. Objects are down-converted to what the server serves.
 */
public final class Cluster implements AutoCloseable {
  public static final String FIELD_MANAGER = "weft";

  /** Every kind a render may produce, with its current apiVersion (down-converted per server). */
  static final List<String[]> KINDS = List.of(
      new String[] {"argoproj.io/v1alpha1", "Workflow"},
      new String[] {"trainer.kubeflow.org/v1alpha1", "OptimizationJob"},
      new String[] {"kubeflow.org/v1beta1", "Experiment"},
      new String[] {"kubeflow.org/v1", "PyTorchJob"},
      new String[] {"trainer.kubeflow.org/v1alpha1", "TrainJob"},
      new String[] {"trainer.kubeflow.org/v1alpha1", "TrainingRuntime"},
      new String[] {"trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime"},
      new String[] {"argoproj.io/v1alpha1", "WorkflowTemplate"},
      new String[] {"jobset.x-k8s.io/v1alpha2", "JobSet"},
      new String[] {"batch/v1", "Job"},
      new String[] {"v1", "Service"},
      new String[] {"autoscaling/v2", "HorizontalPodAutoscaler"},
      new String[] {"monitoring.coreos.com/v1", "PodMonitor"},
      new String[] {"policy/v1", "PodDisruptionBudget"},
      new String[] {"networking.k8s.io/v1", "NetworkPolicy"},
      new String[] {"v1", "ConfigMap"});
  private static final List<String> JOB_KINDS = List.of("Workflow", "OptimizationJob", "Experiment", "PyTorchJob", "TrainJob", "JobSet",
      "Job");
  /** Kinds without a namespace: found and deleted by the run's label across the cluster. */
  private static final List<String> CLUSTER_KINDS = List.of("ClusterTrainingRuntime");

  private final KubernetesClient client;
  private final ApiCompat compat;

  public Cluster(KubernetesClient client) {
    this.client = client;
    this.compat = new ApiCompat(serverMinor(client));
  }

  /** A client for the kubeconfig's current (or the given) context; honours $KUBECONFIG. */
  public static Cluster connect(String context) {
    return new Cluster(new KubernetesClientBuilder().withConfig(Config.autoConfigure(context)).build());
  }

  public KubernetesClient client() { return client; }

  public ApiCompat compat() { return compat; }

  private static int serverMinor(KubernetesClient c) {
    String minor = c.getKubernetesVersion().getMinor().replaceAll("[^0-9]", "");
    return minor.isEmpty() ? Integer.MAX_VALUE : Integer.parseInt(minor);
  }

  /** What one apply did: "Kind/name" per object applied, and one line per optional object the cluster cannot take. */
  public record Applied(List<String> applied, List<String> skipped) {}

  /**
   * Discovery first ({@link ApplyPlan}), then the server's dry run of every object (validation and admission, nothing
   * stored), then server-side apply in order. A refusal in the dry run applies nothing; one after it (a webhook that
   * needs an object of the same render) deletes again what this apply created.
   */
  public Applied apply(Rendered r) {
    ApplyPlan plan = ApplyPlan.of(r, compat, served());
    String ns = r.namespace();
    List<ObjectNode> later = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    for (ObjectNode o : plan.objects()) {
      if (needsNewObject(o, plan.objects(), ns)) {
        later.add(o); // Trainer's webhook looks its TrainingRuntime up: dry-run it once that exists
        continue;
      }
      try {
        send(o, ns, true);
      } catch (KubernetesClientException e) {
        refused.add(ApplyPlan.id(o) + ": " + reason(e));
      }
    }
    if (!refused.isEmpty()) {
      throw new KubernetesClientException("the server's dry run refused " + String.join("; ", refused) + " (nothing was applied)");
    }
    List<ObjectNode> created = new ArrayList<>();
    List<String> done = new ArrayList<>();
    for (ObjectNode o : plan.objects()) {
      try {
        if (later.contains(o)) send(o, ns, true);
        boolean existed = get(o, ns) != null;
        send(o, ns, false);
        if (!existed) created.add(o);
      } catch (KubernetesClientException e) {
        for (ObjectNode c : created) client.resource(toGeneric(c)).inNamespace(ns).delete();
        throw new KubernetesClientException(ApplyPlan.id(o) + " was refused: " + reason(e)
            + " (the objects this apply created were deleted again)", e);
      }
      done.add(ApplyPlan.id(o));
    }
    return new Applied(done, plan.skipped());
  }

  /** What a dry run found: "Kind/name" accepted, "Kind/name: why" refused, and the optional objects skipped. */
  public record DryRun(List<String> accepted, List<String> refused, List<String> skipped) {}

  /** The server's dry run of every object Weft would apply (what {@code weft k8s render --check} runs). */
  public DryRun dryRun(Rendered r) {
    ApplyPlan plan = ApplyPlan.of(r, compat, served());
    List<String> accepted = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    List<String> skipped = new ArrayList<>(plan.skipped());
    for (ObjectNode o : plan.objects()) {
      if (needsNewObject(o, plan.objects(), r.namespace())) {
        skipped.add(ApplyPlan.id(o) + ": not dry-run, its TrainingRuntime is not on the server yet (Trainer's webhook looks it up)");
        continue;
      }
      try {
        send(o, r.namespace(), true);
        accepted.add(ApplyPlan.id(o));
      } catch (KubernetesClientException e) {
        refused.add(ApplyPlan.id(o) + ": " + reason(e));
      }
      if (!o.path("kind").asText().equals("Job")) refused.addAll(dryRunPods(o, r.namespace()));
    }
    return new DryRun(accepted, refused, skipped);
  }

  /**
   * Each pod template of a custom resource, dry-run as a Pod: a CRD's schema checks only its shape, the Pod's own
   * validation and admission (PodSecurity where the server has it) check the rest. Built-in Jobs are validated whole.
   */
  private List<String> dryRunPods(ObjectNode o, String namespace) {
    List<String> refused = new ArrayList<>();
    List<com.fasterxml.jackson.databind.JsonNode> specs = ManifestCheck.podSpecs(o);
    for (int i = 0; i < specs.size(); i++) {
      ObjectNode pod = Yaml.mapper().createObjectNode().put("apiVersion", "v1").put("kind", "Pod");
      pod.putObject("metadata").put("name", o.path("metadata").path("name").asText() + "-check-" + i).put("namespace", namespace);
      pod.set("spec", specs.get(i).deepCopy());
      try {
        client.resource(toGeneric(pod)).inNamespace(namespace).dryRun().create();
      } catch (KubernetesClientException e) {
        refused.add("a pod of " + ApplyPlan.id(o) + " (template " + i + "): " + reason(e));
      }
    }
    return refused;
  }

  private void send(ObjectNode o, String namespace, boolean dryRun) {
    var res = client.resource(toGeneric(o)).inNamespace(namespace);
    (dryRun ? res.dryRun() : res).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
  }

  private GenericKubernetesResource get(ObjectNode o, String namespace) {
    return client.genericKubernetesResources(o.path("apiVersion").asText(), o.path("kind").asText()).inNamespace(namespace)
        .withName(o.path("metadata").path("name").asText()).get();
  }

  /** A TrainJob whose TrainingRuntime is in the same render and not on the server yet. */
  private boolean needsNewObject(ObjectNode o, List<ObjectNode> all, String namespace) {
    if (!o.path("kind").asText().equals("TrainJob")) return false;
    String runtime = o.path("spec").path("runtimeRef").path("name").asText();
    for (ObjectNode other : all) {
      if (other.path("kind").asText().equals("TrainingRuntime") && other.path("metadata").path("name").asText().equals(runtime)) {
        return get(other, namespace) == null;
      }
    }
    return false;
  }

  /** What the cluster serves, asked once per kind and group (discovery). */
  private ApplyPlan.Served served() {
    java.util.Map<String, Boolean> cache = new java.util.HashMap<>();
    return new ApplyPlan.Served() {
      @Override public boolean kind(String apiVersion, String kind) {
        return cache.computeIfAbsent(apiVersion + " " + kind, k -> client.supports(apiVersion, kind));
      }

      @Override public boolean group(String group) {
        return cache.computeIfAbsent("group " + group, k -> client.hasApiGroup(group, false));
      }
    };
  }

  private static String reason(KubernetesClientException e) {
    return e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
  }

  public static GenericKubernetesResource toGeneric(ObjectNode tree) {
    return Yaml.mapper().convertValue(tree, GenericKubernetesResource.class);
  }

  /** The run's objects the server has, job objects first (kinds it does not serve are skipped, by discovery). */
  public List<GenericKubernetesResource> find(String namespace, String name) {
    List<GenericKubernetesResource> out = new ArrayList<>();
    ApplyPlan.Served served = served();
    for (String[] k : KINDS) {
      String apiVersion = compat.apiVersion(new Manifest(k[0], k[1], name, stub(k[0], k[1])));
      if (!served.kind(apiVersion, k[1])) continue;
      try {
        var kind = client.genericKubernetesResources(apiVersion, k[1]);
        out.addAll((CLUSTER_KINDS.contains(k[1]) ? kind.withLabel(Labels.JOB, name) : kind.inNamespace(namespace).withLabel(Labels.JOB, name))
            .list().getItems());
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) throw e;
      }
    }
    return out;
  }

  private static ObjectNode stub(String apiVersion, String kind) {
    ObjectNode n = Yaml.mapper().createObjectNode();
    n.put("apiVersion", apiVersion).put("kind", kind);
    return n;
  }

  /** A TrainJob named {@code name} without the run's label: one submitted by hand against a Weft runtime. */
  private java.util.Optional<GenericKubernetesResource> unlabeledTrainJob(String namespace, String name,
                                                                         List<GenericKubernetesResource> found) {
    if (found.stream().anyMatch(r -> r.getKind().equals("TrainJob") && r.getMetadata().getName().equals(name))
        || !served().kind("trainer.kubeflow.org/v1alpha1", "TrainJob")) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.ofNullable(client.genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob")
        .inNamespace(namespace).withName(name).get());
  }

  public List<Pod> pods(String namespace, String name) {
    return client.pods().inNamespace(namespace).withLabel(Labels.JOB, name).list().getItems();
  }

  /** Prints the run's job objects with their true conditions (a TrainJob's reported progress too), then each pod's phase. */
  public void status(String namespace, String name, PrintWriter out) {
    List<GenericKubernetesResource> found = new ArrayList<>(find(namespace, name));
    unlabeledTrainJob(namespace, name, found).ifPresent(found::add);
    if (found.isEmpty()) {
      out.println("no run named " + name + " in namespace " + namespace);
      return;
    }
    for (GenericKubernetesResource r : found) {
      if (!JOB_KINDS.contains(r.getKind())) continue;
      out.println(r.getKind() + "/" + r.getMetadata().getName() + ": " + JobStatus.line(r.getKind(), r.getAdditionalProperties().get("status")));
    }
    out.println("objects: " + found.stream().map(r -> r.getKind() + "/" + r.getMetadata().getName()).toList());
    for (Pod p : pods(namespace, name)) {
      out.println("pod/" + p.getMetadata().getName() + ": " + p.getStatus().getPhase());
    }
  }

  /** Prints every pod's log, each line prefixed with the pod name. */
  public void logs(String namespace, String name, PrintWriter out) {
    List<Pod> pods = pods(namespace, name);
    if (pods.isEmpty()) out.println("no pods for " + name + " in namespace " + namespace + " yet");
    for (Pod p : pods) {
      String pod = p.getMetadata().getName();
      String log = client.pods().inNamespace(namespace).withName(pod).getLog();
      log.lines().forEach(l -> out.println(pod + " | " + l));
    }
  }

  /** Deletes every object of the run (foreground: pods go with their jobs); returns "kind/name" per object. */
  public List<String> delete(String namespace, String name) {
    List<String> deleted = new ArrayList<>();
    for (GenericKubernetesResource r : find(namespace, name)) {
      var one = client.resource(r);
      (CLUSTER_KINDS.contains(r.getKind()) ? one : one.inNamespace(namespace)).delete();
      deleted.add(r.getKind() + "/" + r.getMetadata().getName());
    }
    return deleted;
  }

  @Override public void close() { client.close(); }
}
