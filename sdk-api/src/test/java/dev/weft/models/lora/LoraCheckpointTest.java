package dev.weft.models.lora;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.checkpoint.Checkpoint;
import dev.weft.models.llama.TinyHfLlama;
import dev.weft.train.RunResult;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A LoRA run's checkpoint: adapters, their optimizer state and the base by reference; resumed at another layout, the same steps. */
class LoraCheckpointTest {
  @TempDir Path dir;

  @Test
  void holdsOnlyAdaptersAndResumesAtAnotherLayoutExactly() throws Exception {
    Path hf = dir.resolve("hf");
    TinyHfLlama.write(hf, 11, false, false);
    Path ck = dir.resolve("ck");
    RunResult full = LoraTrainingTest.loraTune(hf).steps(6).tensorParallel(2).checkpointEvery(3).checkpointDir(ck)
        .runDir(dir.resolve("a")).fit();
    Checkpoint c = Checkpoint.open(ck.resolve("step-000003"));
    Set<String> names = c.manifest().tensors().keySet();
    assertThat(names).isNotEmpty().allMatch(n -> n.contains(".lora_A.") || n.contains(".lora_B."));
    assertThat(names).contains("model/model.layers.0.self_attn.q_proj.lora_A.weight",
        "optim/exp_avg/model.layers.1.mlp.down_proj.lora_B.weight");
    assertThat(c.manifest().state().get("lora_base_sha256")).isInstanceOf(String.class);

    RunResult resumed = LoraTrainingTest.loraTune(hf).steps(6).dataParallel(2).microBatches(1).zero(2)
        .resume(ck.resolve("step-000003").toString()).runDir(dir.resolve("b")).fit();
    assertClose(resumed.losses(), full.losses().subList(3, 6), 1e-5);

    // another base under the same path: refused in one line
    TinyHfLlama.write(hf, 12, false, false);
    assertThatThrownBy(() -> LoraTrainingTest.loraTune(hf).steps(6).resume(ck.resolve("step-000003").toString())
        .runDir(dir.resolve("c")).fit())
        .hasMessageContaining("model.pretrained").hasMessageContaining("is not the base");
  }
}
