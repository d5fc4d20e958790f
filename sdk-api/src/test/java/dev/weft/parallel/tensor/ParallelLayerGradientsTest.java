package dev.weft.parallel.tensor;

import dev.weft.testing.GroupRanks;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.models.Init;
import dev.weft.models.Layers;
import dev.weft.models.layers.DenseLayers;
import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each split layer's output and gradients equal the unsplit layer's (sliced where the weight is split). */
class ParallelLayerGradientsTest {
  private static final Duration T = Duration.ofSeconds(30);
  private static final long SEED = 99;

  /** Runs {@code build} on unsplit layers and on tp split ones; compares loss and each weight's gradient slice. */
  private static void check(int tp, boolean sp, BiFunction<Layers, Tensor, Tensor> build, String weight, int splitDim) {
    Tensor x = Init.normalFull(7, "input", 1.0, 2, 4, 8);
    DenseLayers ref = new DenseLayers(SEED);
    Tensor refLoss = build.apply(ref, x.clone().requires_grad_(true));
    refLoss.backward();
    Tensor refGrad = ref.parameters().get(weight).tensor().grad();
    List<double[]> got = GroupRanks.run(tp, "tp", T, c -> {
      TpOps ops = new TpOps(c);
      TensorParallelLayers layers = new TensorParallelLayers(SEED, ops, sp);
      Tensor in = sp ? ops.chunk(x).contiguous().clone() : x.clone();
      Tensor loss = build.apply(layers, in.requires_grad_(true));
      loss.backward();
      PartialGrads.allReduce(layers.parameters().partialGradParams(), c);
      Tensor g = layers.parameters().get(weight).tensor().grad();
      Tensor expected = splitDim < 0 ? refGrad : Init.slice(refGrad, splitDim, c.rank(), tp);
      return new double[] {loss.item_double(), g.sub(expected).abs().max().item_double(), expected.abs().max().item_double()};
    });
    // under sequence parallelism a loss over the layer output covers only this rank's chunk: the chunks sum to the whole
    boolean partialLoss = sp && !weight.startsWith("head");
    double total = got.stream().mapToDouble(r -> r[0]).sum();
    for (double[] r : got) {
      assertThat(partialLoss ? total : r[0]).isCloseTo(refLoss.item_double(), org.assertj.core.api.Assertions.withinPercentage(1e-3));
      assertThat(r[1]).as("gradient of " + weight).isLessThanOrEqualTo(1e-5 * Math.max(1, r[2]));
    }
  }

  /** Squares keep the loss sensitive to every output element and give non-uniform gradients. */
  private static Tensor sq(Tensor y) { return y.pow(new org.bytedeco.pytorch.Scalar(2)).sum(); }

  @ParameterizedTest
  @CsvSource({"2,false", "4,false", "2,true"})
  void columnThenRow(int tp, boolean sp) {
    BiFunction<Layers, Tensor, Tensor> mlp = (l, x) -> {
      Layers.Linear up = l.column("up", 8, 16, 0.3);
      Layers.Linear down = l.row("down", 16, 8, 0.3);
      return sq(down.forward(torch.tanh(up.forward(x))));
    };
    check(tp, sp, mlp, "up.weight", 0);
    check(tp, sp, mlp, "down.weight", 1);
    check(tp, sp, mlp, "down.bias", -1);
  }

  @ParameterizedTest
  @CsvSource({"2,false", "4,false", "2,true"})
  void vocabParallelHeadAndCrossEntropy(int tp, boolean sp) {
    Tensor targets = torch.randint(16, new long[] {2, 4});
    check(tp, sp, (l, x) -> l.lmHead("head", 8, 16, 0.5).loss(x, targets), "head.weight", 0);
  }

  @ParameterizedTest
  @CsvSource({"2,false", "2,true"})
  void vocabParallelCrossEntropySkipsMaskedTargets(int tp, boolean sp) {
    long no = dev.weft.data.Batches.IGNORE;
    Tensor targets = dev.weft.util.Tensors.ofLongs(no, 3, no, 15, 0, no, 9, 12).view(2, 4); // ids of both vocabulary halves
    check(tp, sp, (l, x) -> l.lmHead("head", 8, 16, 0.5).lossSum(x, targets), "head.weight", 0);
  }
}
