package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.k8s.spec.K8sDeploymentValidator;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.spec.K8sSpecLoader;
import dev.weft.spec.SpecException;
import java.util.List;
import org.junit.jupiter.api.Test;

class K8sSpecLoaderTest {
  @Test
  void aSpecWithoutADeploymentSectionGetsTheDefaults() {
    K8sSpec ks = K8sSpecLoader.parse("name: plain\n", List.of());
    assertThat(ks.deployment().image()).isEqualTo(K8sDeploymentValidator.DEFAULT_IMAGE);
    assertThat(ks.deployment().shmSize()).isEqualTo("1Gi");
    assertThat(ks.deployment().nccl()).containsEntry("NCCL_DEBUG", "WARN");
    assertThat(ks.nodes().min()).isEqualTo(1);
    assertThat(ks.elastic()).isFalse();
  }

  @Test
  void withoutANodeCountTheRunGetsAsManyNodesAsItsMeshNeeds() {
    assertThat(K8sSpecLoader.parse("name: a\nparallel: {dp: 4}\n", List.of()).nodes().toString()).isEqualTo("4");
    assertThat(K8sSpecLoader.parse("name: a\nparallel: {dp: 4}\n", List.of("deployment.procsPerNode=2")).nodes().toString())
        .isEqualTo("2");
    assertThat(K8sSpecLoader.parse("name: a\nparallel: {dp: 4}\n", List.of("deployment.nodes=1:3")).nodes().toString())
        .isEqualTo("1:3");
  }

  @Test
  void theDeploymentFieldsAreReadFromTheFileAndFromOverrides() {
    K8sSpec ks = TestSpecs.tiny("deployment.checkpointStorage.pvc=", "deployment.checkpointStorage.uri=s3://bucket/run",
        "deployment.checkpointStorage.secret=s3-creds", "deployment.nccl.NCCL_DEBUG=INFO");
    assertThat(ks.deployment().checkpointStorage().usesObjectStore()).isTrue();
    assertThat(ks.deployment().nccl()).containsEntry("NCCL_DEBUG", "INFO").containsEntry("NCCL_SOCKET_IFNAME", "eth0");
    assertThat(ks.deployment().tolerations()).hasSize(1);
    assertThat(ks.deployment().queue()).isEqualTo("team-a");
  }

  @Test
  void errorsNameTheFieldAndTheFix() {
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.nodes=4")).isInstanceOf(SpecException.class)
        .hasMessage("deployment.nodes: 4 nodes × 1 procsPerNode = 4 processes, but dp × tp × pp = 2; "
            + "set deployment.nodes and deployment.procsPerNode so that their product is 2");
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.nodes=4:1")).hasMessageStartingWith("deployment.nodes: '4:1' has MAX below MIN");
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.checkpointStorage.uri=s3://b/x"))
        .hasMessageStartingWith("deployment.checkpointStorage: set either pvc (or size) or uri, not both");
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.checkpointStorage.pvc=", "deployment.checkpointStorage.uri=s3://b/x"))
        .hasMessageStartingWith("deployment.checkpointStorage.secret:");
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.tolerations=oops")).hasMessageStartingWith("deployment.tolerations:");
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.namespace=Team_A")).hasMessageStartingWith("deployment.namespace:");
  }
}
