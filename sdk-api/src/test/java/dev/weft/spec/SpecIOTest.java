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
  void missingFileSaysSo() {
    assertThatThrownBy(() -> SpecIO.read(dir.resolve("nope.yaml"))).isInstanceOf(SpecException.class).hasMessageContaining("does not exist");
  }
}
