package dev.weft.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpecIOTest {
  @TempDir Path dir;

  private Path write(String yaml) throws Exception {
    Path f = dir.resolve("spec.yaml");
    Files.writeString(f, yaml);
    return f;
  }

  @Test
  void readsYamlOverDefaultsAndAppliesOverrides() throws Exception {
    Path f = write("name: demo\nparallel:\n  dp: 2\ntrain:\n  steps: 7\n");
    TrainingSpec s = SpecIO.read(f, List.of("parallel.dp=1", "train.lr=0.01", "data.seqLen=32"));
    assertThat(s.name()).isEqualTo("demo");
    assertThat(s.parallel().dp()).isEqualTo(1);
    assertThat(s.train().steps()).isEqualTo(7);
    assertThat(s.train().lr()).isEqualTo(0.01);
    assertThat(s.data().seqLen()).isEqualTo(32);
    assertThat(s.train().globalBatch()).isEqualTo(16); // default kept
  }

  @Test
  void precisionShorthandAndLongFormAgree() throws Exception {
    TrainingSpec shorthand = SpecIO.read(write("precision: bf16\n"));
    TrainingSpec longForm = SpecIO.read(write("precision:\n  dtype: bf16\n  reduceDtype: bf16\n"));
    TrainingSpec viaSet = SpecIO.read(write("name: x\n"), List.of("precision=bf16"));
    assertThat(shorthand.precision()).isEqualTo(longForm.precision()).isEqualTo(viaSet.precision());
    assertThat(SpecIO.read(write("name: x\n"), List.of("precision=fp16")).precision().dtype()).isEqualTo("fp16");
  }

  @Test
  void unknownFieldIsNamedWithItsPath() throws Exception {
    assertThatThrownBy(() -> SpecIO.read(write("parallel:\n  dpp: 2\n")))
        .isInstanceOf(SpecException.class)
        .hasMessageContaining("parallel.dpp")
        .hasMessageContaining("dp");
  }

  @Test
  void wrongTypeIsNamed() throws Exception {
    assertThatThrownBy(() -> SpecIO.read(write("train:\n  steps: many\n")))
        .isInstanceOf(SpecException.class)
        .satisfies(e -> assertThat(((SpecException) e).field()).isEqualTo("train.steps"));
  }

  @Test
  void badOverrideSyntaxIsExplained() throws Exception {
    assertThatThrownBy(() -> SpecIO.read(write("name: x\n"), List.of("parallel.dp")))
        .isInstanceOf(SpecException.class).hasMessageContaining("PATH=VALUE");
  }

  @Test
  void yamlAndJsonRoundTrip() {
    TrainingSpec s = SpecIO.parse("name: rt\nparallel:\n  dp: 4\nmodel:\n  factory: gpt\n  config:\n    size: small\n    layers: 3\n");
    assertThat(SpecIO.parse(SpecIO.toYaml(s))).isEqualTo(s);
    assertThat(SpecIO.fromJson(SpecIO.toJson(s))).isEqualTo(s);
  }

  @Test
  void deploymentRoundTripsWithItsNulls() {
    TrainingSpec defaults = SpecIO.parse("name: d\n");
    assertThat(defaults.deployment().affinity()).isNull();
    assertThat(defaults.deployment().limits()).isEqualTo(new DeploymentSpec.Resources(null, "8Gi"));
    assertThat(SpecIO.toYaml(defaults)).contains("affinity: null").contains("cpu: null");
    assertThat(SpecIO.parse(SpecIO.toYaml(defaults))).isEqualTo(defaults);

    TrainingSpec s = SpecIO.parse("""
        name: d
        deployment:
          nodes: "1:4"
          requests: {cpu: "1", memory: "512"}
          limits: {cpu: null, memory: null}
          affinity:
            nodeAffinity:
              preferredDuringSchedulingIgnoredDuringExecution:
                - weight: 10
                  preference: {matchExpressions: [{key: zone, operator: In, values: ["1", "true", "null", ""]}]}
          tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule, tolerationSeconds: null}]
          checkpointStorage: {pvc: "", uri: s3://b/x, secret: creds, mountPath: /checkpoints}
          nccl: {NCCL_DEBUG: INFO}
        """);
    assertThat(s.deployment().nccl()).containsEntry("NCCL_DEBUG", "INFO").containsEntry("NCCL_SOCKET_IFNAME", "eth0");
    assertThat(s.deployment().tolerations().get(0)).containsEntry("tolerationSeconds", null);
    assertThat(SpecIO.parse(SpecIO.toYaml(s))).isEqualTo(s);
    assertThat(SpecIO.fromJson(SpecIO.toJson(s))).isEqualTo(s);
  }

  @Test
  void missingFileSaysSo() {
    assertThatThrownBy(() -> SpecIO.read(dir.resolve("nope.yaml"))).isInstanceOf(SpecException.class).hasMessageContaining("does not exist");
  }
}
