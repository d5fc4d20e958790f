package dev.weft.cuda.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The GPU check's dry mode ({@code native/gpu-check.sh run --dry}): every step of the training half on the CPU with
 * tiny shapes, so a step broken here is found before a device is lent. Skips are only what needs a device, or a
 * setting ({@code train.lora.quantize}, {@code train.lossChunk}) this build does not have yet.
 */
class GpuTrainingCheckDryTest {
  @Test
  void everyStepRunsOnTheCpu() {
    List<CheckResult> results = GpuTrainingCheck.dryResults();
    assertThat(results).allSatisfy(r -> assertThat(r.passed()).as(r.toString()).isTrue());
    assertThat(results).filteredOn(CheckResult::skipped).allSatisfy(r -> assertThat(r.detail())
        .as(r.toString()).containsAnyOf("measure a CUDA device", FineTuneCheck.QUANTIZE, FineTuneCheck.LOSS_CHUNK));
    assertThat(results).extracting(CheckResult::name).anySatisfy(n -> assertThat(n).contains("dpo"))
        .anySatisfy(n -> assertThat(n).contains("chat-masked sft")).anySatisfy(n -> assertThat(n).contains("allToAll round trip"))
        .anySatisfy(n -> assertThat(n).contains("kv-cache generation")).anySatisfy(n -> assertThat(n).contains("llama-1b-shaped"));
  }
}
