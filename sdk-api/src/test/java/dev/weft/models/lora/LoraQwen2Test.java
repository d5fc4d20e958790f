package dev.weft.models.lora;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.models.hf.HfReference;
import dev.weft.train.RunResult;
import java.nio.file.Path;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * LoRA on a tiny random Qwen 2 (q/k/v biases; tied as Qwen 2 publishes, and untied): dp2, tp2, pp2, dp2·zero3 take dp1's
 * steps. The untied case targets only some projections of each fused group (q and v, not k; up, not gate).
 */
class LoraQwen2Test {
  @TempDir Path dir;

  private static Trainer tune(Path hf, boolean tied) {
    Trainer t = tune(hf);
    return tied ? t : t.set("train.lora.targets", java.util.List.of("q_proj", "v_proj", "up_proj"));
  }

  private static Trainer tune(Path hf) {
    return Trainer.model("qwen2").pretrained(hf).lora(4, 8).seqLen(16).globalBatch(8).microBatches(2).steps(3).warmup(1).lr(2e-2).seed(5);
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void everyLayoutTakesTheStepsOfOneRank(boolean tied) throws Exception {
    Path hf = HfReference.writeFamily("qwen2", dir.resolve("hf"), 29, tied);
    Map<String, Tensor> base = ConsolidatedWeights.load(hf.resolve("model.safetensors"));
    RunResult one = tune(hf, tied).runDir(dir.resolve("one")).fit();
    Map<String, Trainer> layouts = Map.of("dp2", tune(hf, tied).dataParallel(2).microBatches(1), "tp2", tune(hf, tied).tensorParallel(2),
        "pp2", tune(hf, tied).pipeline(2), "dp2zero3", tune(hf, tied).dataParallel(2).microBatches(1).zero(3));
    for (var e : layouts.entrySet()) {
      RunResult r = e.getValue().runDir(dir.resolve(e.getKey())).fit();
      assertClose(r.losses(), one.losses(), 1e-4);
      for (var w : base.entrySet()) assertThat(r.weights().get(w.getKey()).equal(w.getValue())).as("%s %s", e.getKey(), w.getKey()).isTrue();
    }
    assertThat(one.losses().get(2)).isLessThan(one.losses().get(0));
    var names = one.weights().keySet();
    assertThat(names.stream().anyMatch(n -> n.endsWith("q_proj.lora_B.weight"))).isTrue();
    assertThat(names.stream().anyMatch(n -> n.endsWith("k_proj.lora_B.weight") || n.endsWith("gate_proj.lora_B.weight"))).isEqualTo(tied);
  }
}
