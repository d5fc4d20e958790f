package dev.weft.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.spec.TrainingSpec;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The plan of a LoRA or full fine-tune grows with what makes a step bigger (sequence, batch, adapter rank, layers), a
 * smaller frozen base holds less, and {@link FitPlan} finds bounds that fit with one more step that does not.
 */
class PlanActivationProperties {
  private static final String[] BASES = {"none", "bf16", "int8", "nf4"};

  private static Trainer llama(int layers, int seq, int batch, int rank, String quantize, boolean recompute, int chunk) {
    Trainer t = Trainer.model("llama").set("model.config.hidden_size", 128).set("model.config.intermediate_size", 344)
        .set("model.config.num_hidden_layers", layers).set("model.config.num_attention_heads", 4)
        .set("model.config.num_key_value_heads", 2).set("model.config.vocab_size", 4096).seqLen(seq).globalBatch(batch)
        .set("train.recompute", recompute).set("train.lossChunk", chunk);
    return rank == 0 ? t : t.lora(rank, 2 * rank).set("train.lora.quantize", quantize);
  }

  private static double total(Trainer t) { return FitPlan.peak(t.toSpec()).orElseThrow(); }

  @Property(tries = 60)
  void thePlanGrowsWithSequenceBatchRankAndLayers(@ForAll @IntRange(min = 1, max = 4) int layers,
      @ForAll @IntRange(min = 65, max = 2048) int seq, @ForAll @IntRange(min = 1, max = 8) int batch,
      @ForAll @IntRange(min = 0, max = 64) int rank, @ForAll @IntRange(min = 0, max = 3) int base,
      @ForAll boolean recompute, @ForAll @IntRange(min = 0, max = 64) int chunk) {
    // chunks below the sequence (or none): where the tokens first exceed one chunk the whole logits give way to one
    // chunk's, a real drop the plan shows too
    String q = BASES[base];
    double at = total(llama(layers, seq, batch, rank, q, recompute, chunk));
    assertThat(total(llama(layers, seq + 1, batch, rank, q, recompute, chunk))).isGreaterThan(at);
    assertThat(total(llama(layers, seq, batch + 1, rank, q, recompute, chunk))).isGreaterThan(at);
    assertThat(total(llama(layers + 1, seq, batch, rank, q, recompute, chunk))).isGreaterThan(at);
    if (rank > 0) assertThat(total(llama(layers, seq, batch, rank + 1, q, recompute, chunk))).isGreaterThan(at);
    // on one unsplit rank recompute checkpoints each layer: the layers' inputs and one layer's set made again, less than
    // every layer's set from three layers on (round 5, docs/performance.md); a loss over chunks no more than the whole logits
    if (!recompute && layers >= 3) assertThat(total(llama(layers, seq, batch, rank, q, true, chunk))).isLessThan(at);
    assertThat(total(llama(layers, seq, batch, rank, q, recompute, 0))).isGreaterThanOrEqualTo(at);
  }

  /**
   * The held base shrinks with its bytes per weight, whatever the sequence (the total need not: on a model this narrow a
   * compressed base's backward holds more than its weights save, as measured, docs/performance.md round 4).
   */
  @Property(tries = 30)
  void aSmallerFrozenBaseHoldsLess(@ForAll @IntRange(min = 1, max = 1024) int seq, @ForAll @IntRange(min = 1, max = 64) int rank) {
    double previous = Double.MAX_VALUE;
    for (String q : BASES) {
      double held = MemoryPlan.ranks(llama(24, seq, 1, rank, q, true, 256).toSpec()).orElseThrow().get(0).parameters();
      assertThat(held).as(q).isLessThan(previous);
      previous = held;
    }
  }

  @Property(tries = 20)
  void theLongestSequenceAndTheLargestBatchFitAndOneMoreDoesNot(@ForAll @IntRange(min = 200, max = 4000) int mib,
      @ForAll @IntRange(min = 0, max = 16) int rank) {
    double memory = mib * (double) (1 << 20);
    TrainingSpec spec = llama(2, 64, 2, rank, "none", false, 256).toSpec();
    var seq = FitPlan.longestSeq(spec, memory);
    if (seq.isEmpty()) {
      assertThat(FitPlan.peak(FitPlan.with(spec, "data.seqLen", 1)).orElseThrow()).isGreaterThan(memory);
      return;
    }
    assertThat(FitPlan.peak(FitPlan.with(spec, "data.seqLen", seq.getAsInt())).orElseThrow()).isLessThanOrEqualTo(memory);
    if (seq.getAsInt() < FitPlan.MAX_SEQ) {
      assertThat(FitPlan.peak(FitPlan.with(spec, "data.seqLen", seq.getAsInt() + 1)).orElseThrow()).isGreaterThan(memory);
    }
    var batch = FitPlan.largestBatch(spec, memory);
    if (batch.isPresent() && batch.getAsInt() < FitPlan.MAX_BATCH) {
      assertThat(FitPlan.peak(FitPlan.with(spec, "train.globalBatch", batch.getAsInt())).orElseThrow()).isLessThanOrEqualTo(memory);
      assertThat(FitPlan.peak(FitPlan.with(spec, "train.globalBatch", batch.getAsInt() + 1)).orElseThrow()).isGreaterThan(memory);
    }
  }
}
