package dev.weft.models;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.UnaryOperator;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Checkpointed layers give the parameters and the input the gradients the plain layers give (bit for bit: the same
 * ops on the same values), over a stack of three, with an input that needs a gradient and one that does not.
 */
class LayerCheckpointTest {
  private static Tensor[] run(boolean checkpointed, boolean inputGrad) {
    Tensor w1 = Init.normalFull(1, "w1", 0.5, 8, 8).requires_grad_(true), w2 = Init.normalFull(2, "w2", 0.5, 8, 8).requires_grad_(true);
    UnaryOperator<Tensor> a = x -> torch.tanh(x.matmul(w1)), b = x -> x.matmul(w2).mul(x);
    Tensor x = Init.normalFull(3, "x", 1.0, 2, 5, 8).requires_grad_(inputGrad);
    LayerCheckpoint c = new LayerCheckpoint();
    Tensor h = x;
    for (UnaryOperator<Tensor> f : java.util.List.of(a, b, a)) h = checkpointed ? c.run(h, f) : f.apply(h);
    h.pow(new Scalar(2)).sum().backward();
    return new Tensor[] {w1.grad(), w2.grad(), inputGrad ? x.grad() : w1.grad()};
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
}
