package dev.weft.models;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.UnaryOperator;
import dev.weft.precision.Autocast;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Checkpointed layers give the parameters and the input the gradients the plain layers give (bit for bit: the same
 * ops on the same values), over a stack of three, with an input that needs a gradient and one that does not.
 */
class LayerCheckpointTest {
  private static Tensor[] run(boolean checkpointed, boolean inputGrad) { return run(checkpointed, inputGrad, "fp32"); }

  /** The forward under {@code autocast} ("fp32": none), the backward after it closed, as the training loop runs them. */
  private static Tensor[] run(boolean checkpointed, boolean inputGrad, String autocast) {
    Tensor w1 = Init.normalFull(1, "w1", 0.5, 8, 8).requires_grad_(true), w2 = Init.normalFull(2, "w2", 0.5, 8, 8).requires_grad_(true);
    Tensor w3 = Init.normalFull(4, "w3", 0.5, 8, 8).requires_grad_(true); // a weight per layer: under autocast a shared
    // one's bf16 copy is cached across the plain forward, its gradients summed in bf16 before the cast back
    UnaryOperator<Tensor> a = x -> torch.tanh(x.matmul(w1)), b = x -> x.matmul(w2).mul(x), c3 = x -> torch.tanh(x.matmul(w3));
    Tensor x = Init.normalFull(3, "x", 1.0, 2, 5, 8).requires_grad_(inputGrad);
    LayerCheckpoint c = new LayerCheckpoint();
    Tensor h = x;
    try (Autocast ac = Autocast.of(autocast)) {
      for (UnaryOperator<Tensor> f : java.util.List.of(a, b, c3)) h = checkpointed ? c.run(h, f) : f.apply(h);
    }
    h.to(ScalarType.Float).pow(new Scalar(2)).sum().backward();
    return new Tensor[] {w1.grad(), w2.grad(), w3.grad(), inputGrad ? x.grad() : w1.grad()};
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void gradientsEqualThePlainLayers(boolean inputGrad) {
    Tensor[] plain = run(false, inputGrad), ckpt = run(true, inputGrad);
    for (int i = 0; i < plain.length; i++) {
      assertThat(plain[i].abs().max().item_double()).isGreaterThan(1e-3);
      assertThat(ckpt[i].defined()).isTrue();
      assertThat(ckpt[i].sub(plain[i]).abs().max().item_double()).as("gradient " + i).isLessThanOrEqualTo(1e-6);
    }
  }

  /**
   * Under bf16 autocast the recomputation runs in bf16 too, as the forward did (PyTorch's checkpoint restores the
   * autocast state): recomputed in fp32, the gradients differed from the plain layers' by bf16's rounding (~1e-2).
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void underAutocastTheRecomputationRunsInTheForwardsPrecision(boolean inputGrad) {
    Tensor[] plain = run(false, inputGrad, "bf16"), ckpt = run(true, inputGrad, "bf16"), fp32 = run(false, inputGrad, "fp32");
    for (int i = 0; i < plain.length; i++) {
      assertThat(plain[i].sub(fp32[i]).abs().max().item_double()).as("bf16 differs from fp32 " + i).isGreaterThan(1e-4);
      assertThat(ckpt[i].sub(plain[i]).abs().max().item_double()).as("gradient " + i).isLessThanOrEqualTo(1e-6);
    }
  }
}
