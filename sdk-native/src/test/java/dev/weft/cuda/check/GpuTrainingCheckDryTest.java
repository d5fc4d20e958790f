package dev.weft.cuda.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The GPU check's dry mode ({@code native/gpu-check.sh run --dry}): every step of the training half on the CPU with
 * tiny shapes, so a step broken here is found before a device is lent. The dry run walks the device's own step list;
 * the only skips are the steps that measure a device (the GEMM, the GPT ~1.2B MFU).
 */
class GpuTrainingCheckDryTest {
  @Test
  void everyStepRunsOnTheCpu() {
    List<CheckResult> results = GpuTrainingCheck.dryResults();
    assertThat(results).allSatisfy(r -> assertThat(r.passed()).as(r.toString()).isTrue());
    assertThat(results).filteredOn(CheckResult::skipped).extracting(CheckResult::name)
        .containsExactlyInAnyOrder("bf16 gemm 8192^3", "gpt ~1.2B bf16: step time and MFU");
    assertThat(results).extracting(CheckResult::name).anySatisfy(n -> assertThat(n).contains("dpo"))
        .anySatisfy(n -> assertThat(n).contains("chat-masked sft")).anySatisfy(n -> assertThat(n).contains("allToAll round trip"))
        .anySatisfy(n -> assertThat(n).contains("allToAll equal splits"))
        .anySatisfy(n -> assertThat(n).contains("kv-cache generation")).anySatisfy(n -> assertThat(n).contains("llama-1b-shaped"))
        .anySatisfy(n -> assertThat(n).contains("bf16 base")).anySatisfy(n -> assertThat(n).contains("nf4 base"))
        .anySatisfy(n -> assertThat(n).contains("chunked cross-entropy")).anySatisfy(n -> assertThat(n).contains("gpt small"))
        .anySatisfy(n -> assertThat(n).contains("fused adamw"));
  }

  /** The plan a device run prints fits the ~8 minutes of one call: the training half's steps within its budget. */
  @Test
  void thePlanFitsTheBudget() {
    List<Step> steps = GpuTrainingCheck.steps(Target.tiny(), new TrainingRunCheck(1));
    assertThat(steps.stream().mapToInt(Step::plannedSeconds).sum()).isLessThanOrEqualTo(GpuTrainingCheck.DEFAULT_BUDGET_S);
    assertThat(steps).allSatisfy(s -> assertThat(s.plannedSeconds()).as(s.title()).isPositive());
  }
}
