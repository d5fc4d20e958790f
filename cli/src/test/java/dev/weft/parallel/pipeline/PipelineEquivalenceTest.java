package dev.weft.parallel.pipeline;

import dev.weft.bench.TanhStack;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.comm.SoloCommunicator;
import dev.weft.util.NativeThreads;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A pipeline step over m micro-batches gives the loss and every parameter gradient of one rank
 * running the whole toy model over the same micro-batches, for each schedule, split over 2 and 4
 * stages (rank threads with Gloo groups), with and without recomputation.
 */
class PipelineEquivalenceTest {
  private static final int LAYERS = 8;
  private static final int M = 8;
  private static final long BATCH = 4;
  private static final long HIDDEN = 16;
  private static final long SEED = 7;
  private static final double REL = 1e-5;

  private static double refLoss;
  private static Map<String, float[]> refGrads;

  private record Out(StepResult result, Map<String, float[]> grads) {}

  @BeforeAll
  static void singleRankReference() {
    NativeThreads.configure(1);
    TanhStack whole = TanhStack.whole(LAYERS, HIDDEN, SEED);
    double sum = 0;
    try (PointerScope scope = new PointerScope()) {
      for (int mb = 0; mb < M; mb++) {
        Tensor l = TanhStack.loss(whole.forward(0, TanhStack.input(mb, BATCH, HIDDEN, SEED), mb));
        sum += l.item_double();
        l.div(new Scalar((double) M)).backward();
      }
      refGrads = PipelineRanks.grads(whole.parameters());
    }
    refLoss = sum / M;
  }

  private static PipelineExecutor executor(Schedule s, dev.weft.comm.Communicator pp, TanhStack stack, boolean recompute) {
    return PipelineExecutor.builder(s, pp).module(stack)
        .inputs(mb -> TanhStack.input(mb, BATCH, HIDDEN, SEED))
        .loss((out, mb) -> TanhStack.loss(out))
        .activationShape(ActivationShape.fixed(BATCH, HIDDEN))
        .recompute(recompute).build();
  }

  private static List<Out> pipeline(String name, int stages, int virtual, boolean recompute) {
    return PipelineRanks.run(stages, (pp, rank) -> {
      Schedule s = Schedules.of(name, stages, M, virtual);
      TanhStack stack = new TanhStack(s, rank, LAYERS, HIDDEN, SEED);
      StepResult r = executor(s, pp, stack, recompute).step();
      return new Out(r, PipelineRanks.grads(stack.parameters()));
    });
  }

  private static void assertMatchesReference(List<Out> outs) {
    Map<String, float[]> all = new HashMap<>();
    outs.forEach(o -> all.putAll(o.grads()));
    assertThat(all.keySet()).isEqualTo(refGrads.keySet());
    refGrads.forEach((name, want) -> assertThat(relativeError(all.get(name), want)).as(name).isLessThanOrEqualTo(REL));
    double loss = outs.get(outs.size() - 1).result().meanLoss();
    assertThat(Math.abs(loss - refLoss) / Math.abs(refLoss)).isLessThanOrEqualTo(REL);
    assertThat(outs.get(outs.size() - 1).result().losses()).hasSize(M);
    for (int r = 0; r < outs.size() - 1; r++) assertThat(outs.get(r).result().losses()).isEmpty();
  }

  private static double relativeError(float[] got, float[] want) {
    double diff = 0, norm = 0;
    for (int i = 0; i < want.length; i++) {
      diff += Math.pow(got[i] - want[i], 2);
      norm += Math.pow(want[i], 2);
    }
    return Math.sqrt(diff) / Math.max(Math.sqrt(norm), 1e-30);
  }

  @ParameterizedTest(name = "{0} on {1} stages × {2} chunks, recompute {3}")
  @CsvSource({
      "gpipe, 2, 1, false", "1f1b, 2, 1, false", "interleaved-1f1b, 2, 2, false",
      "gpipe, 4, 1, false", "1f1b, 4, 1, false", "interleaved-1f1b, 4, 2, false",
      "1f1b, 2, 1, true", "interleaved-1f1b, 4, 2, true", "gpipe, 4, 1, true"})
  void aPipelineStepMatchesOneRank(String name, int stages, int virtual, boolean recompute) {
    assertMatchesReference(pipeline(name, stages, virtual, recompute));
  }

  @Test
  void oneStageWithChunksHandsActivationsOnLocally() {
    NativeThreads.configure(1);
    Schedule s = Schedules.of("interleaved-1f1b", 1, M, 4);
    TanhStack stack = new TanhStack(s, 0, LAYERS, HIDDEN, SEED);
    List<String> lastBackwards = new java.util.ArrayList<>();
    StepResult r = PipelineExecutor.builder(s, new SoloCommunicator("pp")).module(stack)
        .inputs(mb -> TanhStack.input(mb, BATCH, HIDDEN, SEED)).loss((out, mb) -> TanhStack.loss(out))
        .beforeBackward((mb, chunk, last) -> { if (last) lastBackwards.add("mb" + mb + "c" + chunk); }).build().step();
    assertThat(lastBackwards).containsExactly("mb7c3", "mb7c2", "mb7c1", "mb7c0");
    assertMatchesReference(List.of(new Out(r, PipelineRanks.grads(stack.parameters()))));
  }

  @Test
  void recomputationKeepsOnlyInputsAndSavesActivationMemory() {
    List<Out> keep = pipeline("1f1b", 2, 1, false);
    List<Out> recompute = pipeline("1f1b", 2, 1, true);
    assertMatchesReference(recompute);
    for (int r = 0; r < 2; r++) {
      Map<String, float[]> a = keep.get(r).grads(), b = recompute.get(r).grads();
      a.forEach((name, g) -> assertThat(b.get(name)).as(name).containsExactly(g));
    }
    // Stage 0 of 1F1B keeps 2 micro-batches: without recomputation input + output + 2 saved per layer (4 layers), with only inputs.
    long act = BATCH * HIDDEN * Float.BYTES;
    assertThat(keep.get(0).result().peakKeptBytes()).isEqualTo(2 * (act + act + 8 * act));
    assertThat(recompute.get(0).result().peakKeptBytes()).isEqualTo(2 * act + act + 8 * act);
  }

  @Test
  void aWrongActivationShapeSaysWhatToChange() {
    assertThatThrownBy(() -> PipelineRanks.run(2, java.time.Duration.ofSeconds(15), (pp, rank) -> {
      Schedule s = Schedules.oneFOneB(2, 2);
      TanhStack stack = new TanhStack(s, rank, 2, HIDDEN, SEED);
      return PipelineExecutor.builder(s, pp).module(stack).inputs(mb -> TanhStack.input(mb, BATCH, HIDDEN, SEED))
          .loss((out, mb) -> TanhStack.loss(out)).activationShape(ActivationShape.fixed(BATCH, HIDDEN + 1)).build().step();
    })).hasMessageContaining("activation shape says [4, 17]");
  }
}
