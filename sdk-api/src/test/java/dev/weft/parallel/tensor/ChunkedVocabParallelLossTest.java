package dev.weft.parallel.tensor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.data.Batches;
import dev.weft.models.Init;
import dev.weft.models.layers.DenseLayers;
import dev.weft.testing.GroupRanks;
import dev.weft.util.Tensors;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The vocabulary-parallel head over chunks of tokens (tp=2, with and without sequence parallelism) equals one rank's
 * whole-logits loss, and its gradients (the input's, each rank's slice of the head weight) within 1e-6 of their scale,
 * with masked targets of both vocabulary halves.
 */
class ChunkedVocabParallelLossTest {
  private static final Duration T = Duration.ofSeconds(60);
  private static final long DIM = 8, VOCAB = 16, CHUNK = 3;

  @ParameterizedTest
  @CsvSource({"2,false", "2,true"})
  void chunkedVocabParallelLossEqualsTheWholeOne(int tp, boolean sp) {
    Random r = new Random(4);
    long[] t = new long[2 * 10];
    for (int i = 0; i < t.length; i++) t[i] = r.nextInt(4) == 0 ? Batches.IGNORE : r.nextInt((int) VOCAB);
    Tensor targets = Tensors.ofLongs(t).view(2, 10);
    Tensor x = Init.normalFull(7, "input", 1.0, 2, 10, DIM);
    DenseLayers ref = new DenseLayers(Init.Draws.seeded(99), 0);
    Tensor xr = x.clone().requires_grad_(true);
    Tensor refLoss = ref.lmHead("head", DIM, VOCAB, 0.5).lossSum(xr, targets);
    refLoss.mul(new Scalar(1.5)).backward();
    Tensor refW = ref.parameters().get("head.weight").tensor().grad();
    List<double[]> got = GroupRanks.run(tp, "tp", T, c -> {
      TpOps ops = new TpOps(c);
      TensorParallelLayers layers = new TensorParallelLayers(Init.Draws.seeded(99), ops, sp, CHUNK);
      Tensor in = (sp ? ops.chunk(x).contiguous().clone() : x.clone()).requires_grad_(true);
      Tensor loss = layers.lmHead("head", DIM, VOCAB, 0.5).lossSum(in, targets);
      loss.mul(new Scalar(1.5)).backward();
      Tensor gw = layers.parameters().get("head.weight").tensor().grad();
      Tensor expectedX = sp ? ops.chunk(xr.grad()) : xr.grad();
      return new double[] {loss.item_double(), gw.sub(Init.slice(refW, 0, c.rank(), tp)).abs().max().item_double(),
          in.grad().sub(expectedX).abs().max().item_double()};
    });
    double wScale = refW.abs().max().item_double(), xScale = xr.grad().abs().max().item_double();
    for (double[] g : got) {
      assertThat(Math.abs(g[0] - refLoss.item_double())).isLessThanOrEqualTo(1e-6 * refLoss.item_double());
      assertThat(g[1]).as("head weight slice").isLessThanOrEqualTo(1e-6 * wScale);
      assertThat(g[2]).as("input").isLessThanOrEqualTo(1e-6 * xScale);
    }
  }
}
