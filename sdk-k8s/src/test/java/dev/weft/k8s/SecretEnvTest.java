package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.render.WorkerEnv;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import dev.weft.spec.SpecException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** deployment.secretEnv and the object store's credentials reach pods only as Secret references. */
class SecretEnvTest {
  static final String TOKEN_SHAPED = "hf_abcdefghijklmnopqrstuvwxyzABCD";

  static Stream<Arguments> everyTarget() {
    return Stream.concat(Stream.of(Target.values()).map(t -> Arguments.of(t, false)), Stream.of(Arguments.of(Target.PYTORCHJOB, true)));
  }

  /** Every container of every pod template in the render (Master and Worker, TrainingRuntime's, JobSet's, ...). */
  static List<JsonNode> containers(Rendered r) {
    List<JsonNode> out = new ArrayList<>();
    for (Manifest m : r.manifests()) {
      for (JsonNode list : Yaml.tree(m.body()).findValues("containers")) list.forEach(out::add);
    }
    return out;
  }

  static JsonNode env(JsonNode container, String name) {
    for (JsonNode e : container.path("env")) if (e.path("name").asText().equals(name)) return e;
    throw new AssertionError("no " + name + " in " + container.path("name").asText() + "'s env");
  }

  static K8sSpec spec(boolean elastic, String... overrides) {
    return elastic ? TestSpecs.elastic(overrides) : TestSpecs.tiny(overrides);
  }

  @ParameterizedTest(name = "{0}, elastic {1}")
  @MethodSource("everyTarget")
  void secretEnvIsASecretKeyRefInEveryWorkerPod(Target t, boolean elastic) {
    Rendered r = Renderer.render(spec(elastic, "deployment.secretEnv.HF_TOKEN=hf/token", "deployment.secretEnv.WANDB_API_KEY=wandb/key"), t);
    List<JsonNode> containers = containers(r);
    assertThat(containers).isNotEmpty();
    for (JsonNode c : containers) {
      JsonNode hf = env(c, "HF_TOKEN");
      assertThat(hf.has("value")).as("a value in the manifest").isFalse();
      assertThat(hf.path("valueFrom").path("secretKeyRef").toString()).isEqualTo("{\"key\":\"token\",\"name\":\"hf\"}");
      assertThat(env(c, "WANDB_API_KEY").path("valueFrom").path("secretKeyRef").path("name").asText()).isEqualTo("wandb");
    }
    CrdSchemaTest.assertCustomResourcesValid(r.manifests());
    String configMap = Yaml.tree(r.only("ConfigMap").body()).path("data").path("spec.yaml").asText();
    assertThat(configMap).as("the spec holds the reference only").contains("HF_TOKEN: hf/token");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyTarget")
  void theObjectStoresCredentialsComeKeyByKeyFromItsSecret(Target t, boolean elastic) {
    Rendered r = Renderer.render(spec(elastic, "deployment.checkpointStorage.pvc=", "deployment.checkpointStorage.uri=s3://bucket/runs",
        "deployment.checkpointStorage.secret=s3-creds"), t);
    for (JsonNode c : containers(r)) {
      assertThat(c.has("envFrom")).as("the whole Secret as env").isFalse();
      for (String name : WorkerEnv.OBJECT_STORE_REQUIRED) {
        JsonNode ref = env(c, name).path("valueFrom").path("secretKeyRef");
        assertThat(ref.path("name").asText() + "/" + ref.path("key").asText()).isEqualTo("s3-creds/" + name);
        assertThat(ref.has("optional")).isFalse();
      }
      for (String name : WorkerEnv.OBJECT_STORE_OPTIONAL) {
        assertThat(env(c, name).path("valueFrom").path("secretKeyRef").path("optional").asBoolean()).as(name).isTrue();
      }
    }
    CrdSchemaTest.assertCustomResourcesValid(r.manifests());
    String spec = Yaml.tree(r.only("ConfigMap").body()).path("data").path("spec.yaml").asText();
    assertThat(Yaml.read(spec).path("checkpoint").path("dir").asText()).isEqualTo("s3://bucket/runs");
  }

  @Test
  void aCredentialInPlainEnvIsRefusedPointingToSecretEnvWithoutRepeatingIt() {
    Cli r = Cli.run("render", TestSpecs.path("gpt-tiny.yaml").toString(), "--target", "job",
        "--set", "deployment.env.HF_TOKEN=" + TOKEN_SHAPED);
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.err()).contains("deployment.env.HF_TOKEN: its name says it is a credential")
        .contains("deployment.secretEnv.HF_TOKEN=SECRET-NAME/KEY").doesNotContain(TOKEN_SHAPED);
    assertThat(r.out()).doesNotContain(TOKEN_SHAPED);
    Cli shaped = Cli.run("render", TestSpecs.path("gpt-tiny.yaml").toString(), "--target", "job",
        "--set", "deployment.env.HUB=" + TOKEN_SHAPED);
    assertThat(shaped.code()).isEqualTo(2);
    assertThat(shaped.err()).contains("deployment.env.HUB: its value looks like a Hugging Face token").doesNotContain(TOKEN_SHAPED);
  }

  @Test
  void secretEnvValuesMustNameASecretAndAKey() {
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.secretEnv.HF_TOKEN=" + TOKEN_SHAPED)).isInstanceOf(SpecException.class)
        .hasMessage("deployment.secretEnv.HF_TOKEN: must be SECRET-NAME/KEY (the Secret and the key whose value the variable gets),"
            + " e.g. hf-token/token");
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.secretEnv.HF_TOKEN=Hf_Secrets/token"))
        .hasMessageStartingWith("deployment.secretEnv.HF_TOKEN: 'Hf_Secrets' is not a Secret name");
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.secretEnv.WEFT_LOG=a/b"))
        .hasMessage("deployment.env.WEFT_LOG: is also in deployment.secretEnv; keep it in one of them");
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.secretEnv.9X=a/b")).hasMessageStartingWith("deployment.secretEnv.9X:");
  }
}
