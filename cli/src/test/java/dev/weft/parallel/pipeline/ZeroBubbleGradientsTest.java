package dev.weft.parallel.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.bench.TanhStack;
import dev.weft.models.Parameters;
import dev.weft.models.layers.DenseLayers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;

/**
 * The split backward computes each part once (B: input and non-linear gradients, W: the linears' dW = dYᵀ·X)
 * and every parameter's gradient equals 1F1B's: ZB-H1 on 2 and 4 stages, ZBV on 2 (against interleaved 1F1B), for the toy stack with
 * a gain per chunk (a parameter no linear holds, whose gradient B computes and W hands in).
 */
class ZeroBubbleGradientsTest {
  private static final int LAYERS = 8, M = 8;
  private static final long BATCH = 4, HIDDEN = 16, SEED = 11;

  /** TanhStack whose every chunk ends with a learnable scalar gain. */
  private static final class GainedStack implements StageModule {
    final TanhStack stack;
    final Parameters gains = new Parameters();
    final List<Tensor> perChunk = new ArrayList<>();

    GainedStack(Schedule s, int stage) {
      stack = new TanhStack(s, stage, LAYERS, HIDDEN, SEED);
      for (int c = 0; c < s.virtualStages(); c++) {
        int vs = s.virtualStage(stage, c);
        perChunk.add(DenseLayers.whole(gains, "gain" + vs, torch.full(new long[] {1}, new org.bytedeco.pytorch.Scalar(1.0 + 0.1 * vs))));
      }
    }

    @Override
    public Tensor forward(int chunk, Tensor input, int mb) { return stack.forward(chunk, input, mb).mul(perChunk.get(chunk)); }

    @Override
    public Optional<List<Tensor>> trainableParameters() {
      List<Tensor> all = new ArrayList<>(stack.trainableParameters().orElseThrow());
      all.addAll(perChunk);
      return Optional.of(all);
    }
  }

  private record Run(List<Double> losses, Map<String, float[]> grads) {}

  private static Run run(String name, int stages, int virtual) {
    List<Object[]> outs = PipelineRanks.run(stages, (pp, rank) -> {
      Schedule s = Schedules.of(name, stages, M, virtual);
      GainedStack m = new GainedStack(s, rank);
      StepResult r = PipelineExecutor.builder(s, pp).module(m)
          .inputs(mb -> TanhStack.input(mb, BATCH, HIDDEN, SEED)).loss((out, mb) -> TanhStack.loss(out))
          .activationShape(ActivationShape.fixed(BATCH, HIDDEN)).build().step();
      Map<String, float[]> g = new HashMap<>(PipelineRanks.grads(m.stack.parameters()));
      g.putAll(PipelineRanks.grads(m.gains));
      return new Object[] {r, g};
    });
    List<Double> losses = new ArrayList<>();
    Map<String, float[]> grads = new HashMap<>();
    for (Object[] o : outs) {
      StepResult r = (StepResult) o[0];
      losses.addAll(r.losses());
      @SuppressWarnings("unchecked") Map<String, float[]> g = (Map<String, float[]>) o[1];
      grads.putAll(g);
    }
    return new Run(losses, grads);
  }

  @Test
  void splitBackwardGivesOneFOneBsGradients() {
    for (int stages : new int[] {2, 4}) assertSame(run("zb-h1", stages, 1), run("1f1b", stages, 1), "zb-h1 p=" + stages);
    // the V holds the same four virtual stages as interleaved 1F1B, placed differently
    assertSame(run("zbv", 2, 2), run("interleaved-1f1b", 2, 2), "zbv p=2");
  }

  private static void assertSame(Run got, Run want, String what) {
    assertThat(got.losses()).as(what).hasSameSizeAs(want.losses());
    for (int i = 0; i < got.losses().size(); i++) {
      assertThat(Math.abs(got.losses().get(i) - want.losses().get(i))).as(what + " loss %d", i).isLessThanOrEqualTo(1e-6);
    }
    assertThat(got.grads().keySet()).as(what).isEqualTo(want.grads().keySet());
    want.grads().forEach((n, w) -> {
      float[] g = got.grads().get(n);
      double diff = 0, norm = 0;
      for (int i = 0; i < w.length; i++) {
        diff = Math.max(diff, Math.abs(g[i] - w[i]));
        norm = Math.max(norm, Math.abs(w[i]));
      }
      assertThat(diff).as(what + " " + n + " max |Δ| (max |g| " + norm + ")").isLessThanOrEqualTo(1e-6 * Math.max(1, norm));
    });
  }
}
