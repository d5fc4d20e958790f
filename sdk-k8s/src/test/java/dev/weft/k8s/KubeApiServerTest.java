package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.k8s.apply.Cluster;
import dev.weft.k8s.katib.KatibRenderer;
import dev.weft.k8s.katib.SearchParameter;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.spec.K8sSpecLoader;
import java.nio.file.Path;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every rendered object, created for real on kube-apiserver 1.20 + etcd, and read back intact. */
@Tag("k8s")
class KubeApiServerTest {
  /** Fields a 1.20 server does not know in built-in kinds and drops (documented in docs/kubernetes.md). */
  private static final List<String> DROPPED_BY_120 = List.of("Job.spec.completionMode", "Job.spec.podFailurePolicy");

  static ApiServer server;
  static Cluster cluster;

  @BeforeAll
  static void start() throws Exception {
    server = ApiServer.get();
    cluster = new Cluster(server.client);
    System.setProperty("kubeconfig", server.kubeconfig.toString()); // for the CLI's own client
  }

  /** Paths in {@code sent} that {@code stored} lacks or holds differently. */
  static List<String> missing(JsonNode sent, JsonNode stored, String path) {
    List<String> out = new ArrayList<>();
    if (sent.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = sent.fields(); it.hasNext(); ) {
        var e = it.next();
        out.addAll(missing(e.getValue(), stored.path(e.getKey()), path + "." + e.getKey()));
      }
    } else if (sent.isArray()) {
      for (int i = 0; i < sent.size(); i++) out.addAll(missing(sent.get(i), stored.path(i), path + "[" + i + "]"));
    } else if (!sent.asText().equals(stored.asText())) {
      out.add(path + " (sent " + sent + ", stored " + stored + ")");
    }
    return out;
  }

  static void applyAndReadBack(Rendered r) {
    cluster.apply(r);
    readBack(r);
  }

  static void readBack(Rendered r) {
    for (Manifest m : r.manifests()) {
      ObjectNode sent = cluster.compat().convert(m);
      GenericKubernetesResource stored = server.client.genericKubernetesResources(sent.get("apiVersion").asText(), m.kind())
          .inNamespace(r.namespace()).withName(m.name()).get();
      assertThat(stored).as("%s/%s read back", m.kind(), m.name()).isNotNull();
      JsonNode back = Yaml.mapper().valueToTree(stored);
      List<String> lost = missing(sent.path("spec"), back.path("spec"), m.kind() + ".spec");
      lost.addAll(missing(sent.path("data"), back.path("data"), m.kind() + ".data"));
      lost.removeIf(p -> DROPPED_BY_120.stream().anyMatch(p::startsWith));
      assertThat(lost).as("fields of %s/%s the server pruned or changed", m.kind(), m.name()).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(value = Target.class, names = {"PYTORCHJOB", "TRAINJOB", "JOBSET"})
  void everyObjectOfEveryTargetIsAppliedAndReadBack(Target t) {
    applyAndReadBack(Renderer.render(TestSpecs.tiny("name=fixed-" + t.cliName()), t));
  }

  /** 1.20 has no Indexed Jobs: apply refuses, naming the way out; created anyway, the rest of the objects are kept. */
  @Test
  void thePlainIndexedJobIsRefusedBy120ButItsObjectsAreValid() {
    Rendered r = Renderer.render(TestSpecs.tiny("name=fixed-job"), Target.JOB);
    assertThatThrownBy(() -> cluster.apply(r)).isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("Job/fixed-job cannot run here: --target job needs Indexed Jobs (Kubernetes 1.22 or later)");
    for (Manifest m : r.manifests()) {
      server.client.resource(Cluster.toGeneric(cluster.compat().convert(m))).inNamespace(r.namespace()).create();
    }
    readBack(r);
  }

  @ParameterizedTest
  @EnumSource(value = Target.class, names = {"PYTORCHJOB", "TRAINJOB", "JOBSET"})
  void theRepositorySampleIsAcceptedForEveryTarget(Target t) {
    applyAndReadBack(Renderer.render(K8sSpecLoader.load(Path.of(CliTest.SAMPLE), List.of("name=sample-" + t.cliName())), t));
  }

  /** A rendered checkpoint claim, secretEnv and the object store's key-by-key credentials, as the server stores them. */
  @ParameterizedTest
  @EnumSource(value = Target.class, names = {"PYTORCHJOB", "TRAINJOB", "JOBSET"})
  void claimsAndSecretReferencesAreAccepted(Target t) {
    applyAndReadBack(Renderer.render(TestSpecs.tiny("name=claim-" + t.cliName(), "deployment.checkpointStorage.pvc=",
        "deployment.checkpointStorage.size=5Gi", "deployment.checkpointStorage.storageClass=nfs",
        "deployment.secretEnv.HF_TOKEN=hf/token"), t));
    applyAndReadBack(Renderer.render(TestSpecs.tiny("name=s3-" + t.cliName(), "deployment.checkpointStorage.pvc=",
        "deployment.checkpointStorage.uri=s3://bucket/runs", "deployment.checkpointStorage.secret=s3-creds"), t));
  }

  @Test
  void elasticPyTorchJobWithItsHpa() {
    applyAndReadBack(Renderer.render(TestSpecs.elastic("name=elastic"), Target.PYTORCHJOB));
  }

  @Test
  void katibExperiment() {
    applyAndReadBack(KatibRenderer.render(TestSpecs.tiny("name=search"), new KatibRenderer.Search(
        List.of(SearchParameter.parse("train.lr=1e-4:1e-3")), "loss", "minimize", null, "random", 6, 2, 2)));
  }

  @Test
  void theServerRefusesAResourceItsSchemaForbids() {
    ObjectNode job = Yaml.tree(Renderer.render(TestSpecs.elastic("name=bad-type"), Target.PYTORCHJOB).only("PyTorchJob").body());
    ((ObjectNode) job.path("spec").path("elasticPolicy")).put("minReplicas", "one");
    assertThatThrownBy(() -> server.client.resource(Cluster.toGeneric(job)).inNamespace("default").create())
        .isInstanceOf(KubernetesClientException.class).hasMessageContaining("minReplicas");
  }

  @Test
  void invalidSpecsAreRefusedBeforeAnythingReachesTheServer() {
    String spec = TestSpecs.path("gpt-tiny.yaml").toString();
    Cli r = Cli.run("apply", spec, "--target", "job", "--set", "name=never", "--set", "deployment.nodes=3");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip()).startsWith("error: deployment.nodes:").doesNotContain("\n");
    assertThat(cluster.find("default", "never")).isEmpty();
  }

  @Test
  void applyStatusAndDeleteThroughTheCli() {
    String spec = TestSpecs.path("gpt-tiny.yaml").toString();
    Cli applied = Cli.run("apply", spec, "--target", "jobset", "--set", "name=via-cli");
    assertThat(applied.code()).as(applied.err()).isZero();
    assertThat(applied.out()).contains("applied ConfigMap/via-cli-spec", "applied JobSet/via-cli");

    Cli status = Cli.run("status", "via-cli");
    assertThat(status.code()).as(status.err()).isZero();
    assertThat(status.out()).contains("JobSet/via-cli: no conditions yet", "NetworkPolicy/via-cli");

    Cli again = Cli.run("apply", spec, "--target", "jobset", "--set", "name=via-cli", "--set", "train.steps=50");
    assertThat(again.code()).as("re-apply is idempotent: " + again.err()).isZero();

    Cli deleted = Cli.run("delete", "via-cli");
    assertThat(deleted.code()).as(deleted.err()).isZero();
    assertThat(deleted.out()).contains("deleted JobSet/via-cli", "deleted ConfigMap/via-cli-spec");
    assertThat(cluster.find("default", "via-cli")).isEmpty();
  }
}
