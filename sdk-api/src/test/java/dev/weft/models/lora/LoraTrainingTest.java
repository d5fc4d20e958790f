package dev.weft.models.lora;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.models.llama.TinyHfLlama;
import dev.weft.train.RunResult;
import java.nio.file.Path;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LoRA fine-tunes of a tiny pretrained Llama: every layout takes the steps dp=1 takes, the base
 * comes out bit for bit as it went in, and only the adapters move.
 */
class LoraTrainingTest {
  @TempDir Path dir;

  static Trainer loraTune(Path hf) {
    return Trainer.model("llama").pretrained(hf).lora(4, 8).seqLen(16).globalBatch(8).microBatches(2).steps(4).warmup(1)
        .lr(2e-2).seed(5);
  }

  @Test
  void everyLayoutTakesTheStepsOfOneRankAndTheBaseStaysAsLoaded() throws Exception {
    Path hf = dir.resolve("hf");
    Map<String, Tensor> base = ConsolidatedWeights.load(TinyHfLlama.write(hf, 11, false, false).resolve("model.safetensors"));
    RunResult one = loraTune(hf).runDir(dir.resolve("one")).fit();
    RunResult dp = loraTune(hf).dataParallel(2).microBatches(1).runDir(dir.resolve("dp")).fit();
    RunResult tp = loraTune(hf).tensorParallel(2).runDir(dir.resolve("tp")).fit();
    RunResult pp = loraTune(hf).pipeline(2).runDir(dir.resolve("pp")).fit();
    RunResult zero3 = loraTune(hf).dataParallel(2).microBatches(1).zero(3).runDir(dir.resolve("z3")).fit();
    RunResult spRecompute = loraTune(hf).tensorParallel(2).sequenceParallel().recompute().runDir(dir.resolve("sp")).fit();
    for (RunResult r : new RunResult[] {dp, tp, pp, zero3, spRecompute}) assertClose(r.losses(), one.losses(), 1e-4);
    // the adapters learned: the loss falls, B moved off zero
    assertThat(one.losses().get(3)).isLessThan(one.losses().get(0));
    for (RunResult r : new RunResult[] {one, dp, tp, pp, zero3, spRecompute}) {
      for (var e : base.entrySet()) {
        assertThat(r.weights().get(e.getKey()).equal(e.getValue())).as("%s bit for bit", e.getKey()).isTrue();
      }
      assertThat(r.weights().keySet().stream().filter(LoraLayers::isAdapter)).hasSize(2 * 7 * TinyHfLlama.LAYERS);
      assertThat(r.weights().get("model.layers.1.mlp.down_proj.lora_B.weight").abs().max().item_double()).isGreaterThan(0);
    }
  }
}
