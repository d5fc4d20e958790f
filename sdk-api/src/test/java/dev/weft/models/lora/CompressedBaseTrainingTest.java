package dev.weft.models.lora;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.models.llama.TinyHfLlama;
import dev.weft.spec.SpecException;
import dev.weft.train.RunResult;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LoRA fine-tunes of a tiny pretrained Llama over an NF4 base: dp=2 (and ZeRO-2) take the steps dp=1 takes, the loss
 * falls and starts near the fp32 base's; layouts the compressed base does not run yet are refused in one line.
 */
class CompressedBaseTrainingTest {
  @TempDir Path dir;

  @Test
  void anNf4BaseTrainsUnderDataParallelism() throws Exception {
    Path hf = dir.resolve("hf");
    TinyHfLlama.write(hf, 11, false, false);
    RunResult fp32 = LoraTrainingTest.loraTune(hf).runDir(dir.resolve("fp32")).fit();
    RunResult one = LoraTrainingTest.loraTune(hf).set("train.lora.quantize", "nf4").runDir(dir.resolve("one")).fit();
    RunResult dp = LoraTrainingTest.loraTune(hf).set("train.lora.quantize", "nf4").dataParallel(2).microBatches(1)
        .runDir(dir.resolve("dp")).fit();
    RunResult zero2 = LoraTrainingTest.loraTune(hf).set("train.lora.quantize", "nf4").dataParallel(2).microBatches(1).zero(2)
        .runDir(dir.resolve("z2")).fit();
    assertClose(dp.losses(), one.losses(), 1e-4);
    assertClose(zero2.losses(), one.losses(), 1e-4);
    assertThat(one.losses().get(3)).isLessThan(one.losses().get(0));
    assertThat(one.losses().get(0)).isCloseTo(fp32.losses().get(0), org.assertj.core.api.Assertions.withinPercentage(5));
    assertThat(one.losses().get(0)).isNotEqualTo(fp32.losses().get(0)); // the base really is the 4-bit one
  }

  /** train.recompute on one rank checkpoints each layer (LayerCheckpoint): the same steps, over the 16-bit embedding/head. */
  @Test
  void checkpointedLayersTakeTheSameSteps() throws Exception {
    Path hf = dir.resolve("hf");
    TinyHfLlama.write(hf, 11, true, false);
    RunResult plain = LoraTrainingTest.loraTune(hf).set("train.lora.quantize", "nf4").set("train.lossChunk", 8)
        .runDir(dir.resolve("plain")).fit();
    RunResult re = LoraTrainingTest.loraTune(hf).set("train.lora.quantize", "nf4").set("train.lossChunk", 8).recompute()
        .runDir(dir.resolve("re")).fit();
    assertClose(re.losses(), plain.losses(), 1e-5);
    assertThat(plain.losses().get(3)).isLessThan(plain.losses().get(0));
  }

  /** {@code nf4-dq} (nested scales) trains from the spec as {@code nf4} does: each absmax within the map's ~1 % of its own. */
  @Test
  void nestedScalesTrainAsNf4Does() throws Exception {
    Path hf = dir.resolve("hf");
    TinyHfLlama.write(hf, 11, true, false);
    RunResult nf4 = LoraTrainingTest.loraTune(hf).set("train.lora.quantize", "nf4").runDir(dir.resolve("nf4")).fit();
    RunResult dq = LoraTrainingTest.loraTune(hf).set("train.lora.quantize", "nf4-dq").runDir(dir.resolve("dq")).fit();
    assertClose(dq.losses(), nf4.losses(), 1e-2);
    assertThat(dq.losses()).isNotEqualTo(nf4.losses()); // the nested scales are in use
    assertThat(dq.losses().get(3)).isLessThan(dq.losses().get(0));
  }

  @Test
  void tensorParallelismIsRefusedInOneLine() {
    assertThatThrownBy(() -> LoraTrainingTest.loraTune(dir).set("train.lora.quantize", "nf4").tensorParallel(2).toSpec())
        .isInstanceOf(SpecException.class).hasMessageContaining("train.lora.quantize").hasMessageNotContaining("\n");
    assertThatThrownBy(() -> LoraTrainingTest.loraTune(dir).set("train.lora.quantize", "nf3").toSpec())
        .isInstanceOf(SpecException.class).hasMessageContaining("nf4, nf4-dq, int8, bf16, fp16");
  }
}
