package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.SupportObjects;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import dev.weft.spec.SpecException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** deployment.checkpointStorage as a claim every pod mounts, referenced or rendered, with checkpoint.dir inside it. */
class CheckpointStorageTest {
  /** The claim each pod template's "checkpoints" volume names, and where each container mounts it. */
  static void assertEveryPodMounts(Rendered r, String claim, String mountPath) {
    int templates = 0;
    for (Manifest m : r.manifests()) {
      for (JsonNode podSpec : Yaml.tree(m.body()).findParents("containers")) {
        templates++;
        JsonNode volume = null;
        for (JsonNode v : podSpec.path("volumes")) if (v.path("name").asText().equals("checkpoints")) volume = v;
        assertThat(volume).as("%s's checkpoints volume", m.kind()).isNotNull();
        assertThat(volume.path("persistentVolumeClaim").path("claimName").asText()).isEqualTo(claim);
        for (JsonNode c : podSpec.path("containers")) {
          assertThat(c.path("volumeMounts").findValuesAsText("mountPath")).contains(mountPath);
        }
      }
    }
    assertThat(templates).as("pod templates").isPositive();
    String spec = Yaml.tree(r.only("ConfigMap").body()).path("data").path("spec.yaml").asText();
    assertThat(Yaml.read(spec).path("checkpoint").path("dir").asText()).as("checkpoint.dir the workers read").isEqualTo(mountPath);
    assertThat(Yaml.read(spec).path("tracking").path("tensorboard").asText()).as("event files outlive the pod")
        .isEqualTo(mountPath + "/tensorboard");
  }

  @ParameterizedTest
  @EnumSource(Target.class)
  void aReferencedClaimIsMountedAndNotRendered(Target t) {
    Rendered r = Renderer.render(TestSpecs.tiny(), t); // the test spec's checkpointStorage: {pvc: weft-checkpoints}
    assertEveryPodMounts(r, "weft-checkpoints", "/checkpoints");
    assertThat(r.has("PersistentVolumeClaim")).isFalse();
  }

  @ParameterizedTest
  @EnumSource(Target.class)
  void aSizeRendersTheClaimFirst(Target t) {
    Rendered r = Renderer.render(TestSpecs.tiny("deployment.checkpointStorage.pvc=", "deployment.checkpointStorage.size=50Gi",
        "deployment.checkpointStorage.storageClass=nfs", "deployment.checkpointStorage.mountPath=/ckpt"), t);
    assertEveryPodMounts(r, "gpt-tiny-checkpoints", "/ckpt");
    CrdSchemaTest.assertCustomResourcesValid(r.manifests());
    assertThat(r.manifests().get(0).kind()).as("applied before the pods that mount it").isEqualTo("PersistentVolumeClaim");
    JsonNode claim = Yaml.tree(r.only("PersistentVolumeClaim").body());
    assertThat(claim.path("metadata").path("name").asText()).isEqualTo("gpt-tiny-checkpoints");
    assertThat(claim.path("metadata").path("labels").has("weft.dev/job")).as("kept by weft k8s delete").isFalse();
    assertThat(claim.path("spec").path("accessModes").toString()).isEqualTo("[\"ReadWriteMany\"]");
    assertThat(claim.path("spec").path("storageClassName").asText()).isEqualTo("nfs");
    assertThat(claim.path("spec").path("resources").path("requests").path("storage").asText()).isEqualTo("50Gi");
  }

  @Test
  void aNamedRenderedClaimAndACheckpointDirInsideTheMount() {
    Rendered r = Renderer.render(TestSpecs.tiny("deployment.checkpointStorage.pvc=shared", "deployment.checkpointStorage.size=1Ti",
        "checkpoint.dir=/checkpoints/gpt-tiny"), Target.JOB);
    assertThat(Yaml.tree(r.only("PersistentVolumeClaim").body()).path("metadata").path("name").asText()).isEqualTo("shared");
    String spec = Yaml.tree(r.only("ConfigMap").body()).path("data").path("spec.yaml").asText();
    assertThat(Yaml.read(spec).path("checkpoint").path("dir").asText()).isEqualTo("/checkpoints/gpt-tiny");
    assertThat(Yaml.read(spec).path("tracking").path("tensorboard").asText()).isEqualTo("/checkpoints/gpt-tiny/tensorboard");
    String onS3 = SupportObjects.workerSpecYaml(TestSpecs.tiny("deployment.checkpointStorage.pvc=",
        "deployment.checkpointStorage.uri=s3://bucket/runs/a", "deployment.checkpointStorage.secret=s3-creds"));
    assertThat(Yaml.read(onS3).path("tracking").path("tensorboard").asText()).as("copied to the bucket").isEqualTo("s3://bucket/runs/a/tensorboard");
    String chosen = SupportObjects.workerSpecYaml(TestSpecs.tiny("tracking.tensorboard=off"));
    assertThat(dev.weft.spec.SpecIO.parse(chosen).tracking().tensorboard()).as("the user's choice stands").isEqualTo("off");
  }

  @Test
  void mistakesAreOneLineNamingTheField() {
    assertThatThrownBy(() -> TestSpecs.tiny("checkpoint.dir=/data/ckpt")).isInstanceOf(SpecException.class)
        .hasMessage("checkpoint.dir: '/data/ckpt' is outside deployment.checkpointStorage.mountPath /checkpoints, so its"
            + " checkpoints die with the pod; leave checkpoint.dir empty or put it under /checkpoints");
    assertThatThrownBy(() -> TestSpecs.tiny("checkpoint.dir=/checkpoints/../etc")).hasMessageStartingWith("checkpoint.dir:");
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.checkpointStorage.accessMode=ReadWriteOnce"))
        .hasMessage("deployment.checkpointStorage.accessMode: ReadWriteOnce mounts the claim on one node, but 2 pods write"
            + " their shards into it; use ReadWriteMany");
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.checkpointStorage.size=lots"))
        .hasMessageStartingWith("deployment.checkpointStorage.size: 'lots' is not a Kubernetes quantity");
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.checkpointStorage.size=1Gi", "deployment.checkpointStorage.accessMode=Many"))
        .hasMessageStartingWith("deployment.checkpointStorage.accessMode: 'Many' is not an access mode");
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.checkpointStorage.pvc=", "deployment.checkpointStorage.uri=gs://b/x",
        "deployment.checkpointStorage.secret=s")).hasMessage("deployment.checkpointStorage.uri: 'gs://b/x' is not an S3 URI; write s3://bucket/prefix");
    assertThat(TestSpecs.tiny("deployment.nodes=1", "parallel.dp=1", "deployment.checkpointStorage.accessMode=ReadWriteOnce")
        .deployment().checkpointStorage().accessMode()).as("one pod may use a ReadWriteOnce claim").isEqualTo("ReadWriteOnce");
  }

  @Test
  void theOldStringFormStillReads() {
    var ks = dev.weft.k8s.spec.K8sSpecLoader.parse("name: a\nparallel: {dp: 2}\ndeployment: {checkpointStorage: {pvc: old, mountPath: /c}}\n",
        List.of());
    assertEveryPodMounts(Renderer.render(ks, Target.JOBSET), "old", "/c");
  }
}
