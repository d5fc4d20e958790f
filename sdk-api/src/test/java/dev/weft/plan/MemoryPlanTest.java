package dev.weft.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.models.gpt.GptConfig;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The planner's arithmetic against the model's own parameter count, ZeRO's divisions, and the pre-flight refusal. */
class MemoryPlanTest {
  private static final Path TINY = Path.of("../samples/configs/gpt-tiny.yaml");

  private static TrainingSpec spec(String... sets) { return SpecIO.read(TINY, List.of(sets)); }

  @Test
  void oneRankHoldsTheWholeModel() {
    TrainingSpec s = spec("parallel.dp=1");
    RankPlan r = MemoryPlan.ranks(s).orElseThrow().get(0);
    long exact = GptConfig.from(s.model().config(), s.data().seqLen()).parameterCount();
    assertThat(r.parameterCount()).isEqualTo((double) exact);
    assertThat(r.parameters()).isEqualTo(4.0 * exact);
    assertThat(r.optimizerState()).isEqualTo(8.0 * exact);
    assertThat(r.dpBytes()).isZero();
  }

  @Test
  void splitsAddUpAndZeroDivides() {
    TrainingSpec whole = spec("parallel.dp=1");
    double all = MemoryPlan.ranks(whole).orElseThrow().get(0).parameterCount();
    List<RankPlan> tp2pp2 = MemoryPlan.ranks(spec("parallel.dp=1", "parallel.tp=2", "parallel.pp=2", "parallel.microBatches=2")).orElseThrow();
    double h = 128;
    double replicated = 4 * 6 * h + 2 * h + 64 * h; // one extra copy (tp=2) of: per layer LayerNorms and row biases; ln_f; position embedding
    assertThat(tp2pp2.stream().mapToDouble(RankPlan::parameterCount).sum()).isEqualTo(all + replicated, org.assertj.core.data.Offset.offset(1.0));
    RankPlan z0 = MemoryPlan.ranks(spec("parallel.zero=0")).orElseThrow().get(0);
    RankPlan z3 = MemoryPlan.ranks(spec("parallel.zero=3")).orElseThrow().get(0);
    assertThat(z3.parameters()).isEqualTo(z0.parameters() / 2);
    assertThat(z3.gradients()).isEqualTo(z0.gradients() / 2);
    assertThat(z3.optimizerState()).isEqualTo(z0.optimizerState() / 2);
  }

  /**
   * A full fine-tune's backward makes the embedding's and the head's gradients whole before adding them into the flat
   * buffer: a wider vocabulary adds both tables' gradients and Adam's one-table denominator, not only the loss's logits
   * (the 0.5B Qwen planned 8.8 GiB against a 9.8 GiB peak without them).
   */
  @Test
  void aFullFineTuneCountsItsTablesWholeGradients() {
    double h = 128, narrow = 50_000, wide = 100_000;
    RankPlan a = MemoryPlan.ranks(spec("parallel.dp=1", "train.globalBatch=1", "data.seqLen=8", "model.config.vocab=50000")).orElseThrow().get(0);
    RankPlan b = MemoryPlan.ranks(spec("parallel.dp=1", "train.globalBatch=1", "data.seqLen=8", "model.config.vocab=100000")).orElseThrow().get(0);
    double tables = 4 * 2 * (wide - narrow) * h, adam = 4 * (wide - narrow) * h;
    assertThat(b.activations() - a.activations()).isGreaterThanOrEqualTo(tables + adam).isLessThan(1.1 * (tables + adam));
    assertThat(MemoryPlan.tableGradients(narrow * h, narrow * h, true)).isEqualTo(3 * 4 * narrow * h); // tied: both and their sum
  }

  @Test
  void preflightNamesTheFieldAndTheEstimate() {
    TrainingSpec s = spec("model.config.hidden=1000000000");
    List<RankPlan> ranks = MemoryPlan.ranks(s).orElseThrow();
    assertThatThrownBy(() -> Preflight.check(s, ranks, 64.0 * (1L << 30)))
        .isInstanceOf(SpecException.class).hasMessageStartingWith("model.config.hidden:").hasMessageContaining("EiB")
        .hasMessageContaining("64.0 GiB");
    Preflight.check(spec(), MemoryPlan.ranks(spec()).orElseThrow(), 64.0 * (1L << 30)); // the tiny model fits
  }

  /** eval/generate --precision bf16 of a 16-bit directory hold the file's weights (2 B each), not an fp32 copy. */
  @Test
  void aMapped16BitModelIsCheckedAtItsOwnSize() {
    TrainingSpec s = spec("model.config.hidden=1024", "parallel.dp=1");
    RankPlan r = MemoryPlan.ranks(s).orElseThrow().get(0);
    double between = r.runtime() + 0.75 * r.parameters(); // room for bf16 weights, not for fp32 ones
    assertThatThrownBy(() -> Preflight.checkWhole(s, between)).isInstanceOf(SpecException.class).hasMessageContaining("in fp32");
    Preflight.checkWhole(s, between, "bf16");
    assertThatThrownBy(() -> Preflight.checkWhole(s, r.runtime() + 0.25 * r.parameters(), "bf16")).hasMessageContaining("in bf16");
  }

  @Test
  void activationsDriveTheMessageWhenTheyDominate() {
    assertThat(Preflight.drivers(spec(), false)).containsExactly("data.seqLen", "train.globalBatch");
    assertThat(Preflight.drivers(spec(), true)).containsExactly("model.config.size");
  }
}
