package dev.weft.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.data.ArithmeticCorpus;
import dev.weft.data.Batches;
import dev.weft.models.Parameters.Param;
import dev.weft.train.ModelBuilder;
import java.util.List;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The step benchmark's hand-written reference trains the same model as the Weft side it is compared with: as many
 * trainable parameters as Weft builds for the same sizes (the adapters only, under LoRA), a loss near ln(vocab) at
 * its small initial weights, and gradients on exactly its trainable tensors.
 */
class PlainModelTest {
  private static final List<PlainModel.Shape> SHAPES = List.of(
      new PlainModel.Shape("gpt", false, 2, 64, 4, 4, 256, 300, 32, 2, 0),
      new PlainModel.Shape("llama", true, 2, 64, 4, 2, 176, 300, 32, 2, 0),
      new PlainModel.Shape("llama-lora", true, 2, 64, 4, 2, 176, 300, 32, 2, 4));

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2})
  void trainsWhatWeftTrainsForTheSameSizes(int shape) {
    PlainModel.Shape s = SHAPES.get(shape);
    PlainModel plain = new PlainModel(s, 7);
    long weft = ModelBuilder.build(PlainStepBench.trainer(s, 1).toSpec(), null, 0).parameters().trainable().stream()
        .mapToLong(Param::numel).sum();
    TensorVector params = plain.trainable();
    long mine = 0;
    for (long i = 0; i < params.size(); i++) mine += params.get(i).numel();
    assertThat(mine).isEqualTo(weft);

    Batches.Batch b = Batches.make(new ArithmeticCorpus(7), 0, s.batch(), s.seqLen());
    Tensor loss = plain.loss(b.tokens(), b.targets());
    assertThat(loss.item_double()).isCloseTo(Math.log(s.vocab()), org.assertj.core.data.Offset.offset(0.2));
    loss.backward();
    for (long i = 0; i < params.size(); i++) assertThat(params.get(i).grad().defined()).isTrue();
  }
}
