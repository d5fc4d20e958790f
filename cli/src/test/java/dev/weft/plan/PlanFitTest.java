package dev.weft.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.testing.WeftCli;
import dev.weft.spec.SpecIO;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code weft plan --memory}: what fits per rank, as {@link FitPlan} finds it, and one-line refusals of bad input. */
class PlanFitTest {
  private static final Path LLAMA = Path.of("../samples/configs/llama-tiny.yaml");

  @Test
  void memoryPrintsTheLongestSequenceTheLargestBatchAndWhichPresetsFit() {
    var spec = SpecIO.read(LLAMA, List.of("parallel.tp=1", "parallel.dp=1", "train.lora.rank=8", "train.globalBatch=1"));
    double memory = 2.0 * (1L << 30);
    int seq = FitPlan.longestSeq(spec, memory).orElseThrow(), batch = FitPlan.largestBatch(spec, memory).orElseThrow();
    WeftCli.Output out = WeftCli.capture("plan", LLAMA.toString(), "--set", "parallel.tp=1", "--set", "parallel.dp=1", "--set",
        "train.lora.rank=8", "--set", "train.globalBatch=1", "--memory", "2GiB", "--like", "smollm2-135m,llama-3.1-8b");
    assertThat(out.code()).as(out.err()).isZero();
    assertThat(out.out()).contains("fits in 2.0 GiB per rank: data.seqLen up to " + seq + " at train.globalBatch=")
        .contains("train.globalBatch up to " + batch + " at data.seqLen=").containsPattern("--like smollm2-135m +[0-9.]+ [GM]iB per rank: fits")
        .containsPattern("--like llama-3.1-8b +[0-9.]+ GiB per rank: does not fit");
    assertThat(FitPlan.peak(FitPlan.with(spec, "data.seqLen", seq + 1)).orElseThrow()).isGreaterThan(memory);
  }

  @Test
  void badSizesAndPresetsAreOneLine() {
    WeftCli.Output size = WeftCli.capture("plan", LLAMA.toString(), "--memory", "24 gigs");
    assertThat(size.code()).isEqualTo(2);
    assertThat(size.err().strip()).doesNotContain("\n").contains("--memory 24 gigs is not a size").contains("24GiB");
    WeftCli.Output like = WeftCli.capture("plan", LLAMA.toString(), "--memory", "24GiB", "--like", "gpt-5");
    assertThat(like.code()).isEqualTo(2);
    assertThat(like.err().strip()).doesNotContain("\n").contains("--like gpt-5 is not a preset").contains("llama-3.1-8b");
    WeftCli.Output alone = WeftCli.capture("plan", LLAMA.toString(), "--like", "smollm2-135m");
    assertThat(alone.code()).isEqualTo(2);
    assertThat(alone.err().strip()).doesNotContain("\n").contains("--like needs --memory");
  }
}
