package dev.weft.models.lora;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.spec.LoraSpec;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code train.lora}'s defaults, its scale, and every mistake in it as one line naming the field. */
class LoraSpecTest {
  @Test
  void offByDefaultAndScaledAsPeft() {
    TrainingSpec s = Trainer.model("llama").toSpec();
    assertThat(s.train().lora().enabled()).isFalse();
    assertThat(s.train().lora().targets()).isEqualTo(LoraSpec.MODULES);
    LoraSpec l = Trainer.model("llama").lora(16, 32).toSpec().train().lora();
    assertThat(l.scale()).isEqualTo(2.0);
    assertThat(l.targets("model.layers.3.self_attn.q_proj")).isTrue();
    assertThat(l.targets("model.layers.3.input_layernorm")).isFalse();
    assertThat(Trainer.model("llama").lora(16, 32).set("train.lora.rslora", true).toSpec().train().lora().scale()).isEqualTo(8.0);
  }

  @Test
  void mistakesAreOneLineNamingTheField() {
    refused(Trainer.model("llama").set("train.lora.rank", -1), "train.lora.rank");
    refused(Trainer.model("llama").lora(8, 0), "train.lora.alpha");
    refused(Trainer.model("llama").lora(8, 16).set("train.lora.dropout", 1.0), "train.lora.dropout");
    refused(Trainer.model("llama").lora(8, 16).set("train.lora.targets", List.of("qkv")), "train.lora.targets");
    refused(Trainer.model("llama").lora(8, 16).set("train.lora.targets", List.of()), "train.lora.targets");
    refused(Trainer.model("llama").set("train.lora.adapter", "/tmp/x"), "train.lora.adapter");
    refused(Trainer.model("llama").lora(8, 16).set("train.lora.dropout", 0.1).recompute(), "train.lora.dropout");
  }

  @Test
  void aModelWithoutTheTargetsIsRefused() {
    assertThatThrownBy(() -> Trainer.model("gpt").set("model.config.layers", 1).lora(4, 8).steps(1).globalBatch(1).fit())
        .hasMessageContaining("train.lora.targets").hasMessageContaining("no module named");
  }

  private static void refused(Trainer t, String field) {
    assertThatThrownBy(t::toSpec).isInstanceOf(SpecException.class).hasMessageContaining(field)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }
}
