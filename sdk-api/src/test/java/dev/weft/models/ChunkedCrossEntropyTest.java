package dev.weft.models;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.data.Batches;
import dev.weft.data.PackedDocuments;
import dev.weft.models.layers.DenseLayers;
import dev.weft.util.Tensors;
import java.util.List;
import java.util.Random;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The head's cross-entropy over chunks of tokens equals the whole-logits loss and its gradients (the hidden states',
 * the head weight's) within 1e-6, with targets masked out, under a scaled output gradient, for a tied head, and
 * through a decoder with packed documents and DPO's per-row log-probabilities; a frozen head made a block of rows at a
 * time equals the whole weight.
 */
class ChunkedCrossEntropyTest {
  private static final long DIM = 16, VOCAB = 40;

  private static Tensor targets(long rows, long cols, long seed) {
    Random r = new Random(seed);
    long[] t = new long[(int) (rows * cols)];
    for (int i = 0; i < t.length; i++) t[i] = r.nextInt(4) == 0 ? Batches.IGNORE : r.nextInt((int) VOCAB);
    return Tensors.ofLongs(t).view(rows, cols);
  }

  /** Loss, dHidden and dWeight of a head built with {@code chunk}, its summed loss backward-ed times 2.5. */
  private static List<Tensor> run(long chunk, boolean tied, Tensor targets) {
    DenseLayers layers = new DenseLayers(Init.Draws.seeded(11), chunk);
    Layers.LmHead head;
    if (tied) {
      layers.embedding("embed", VOCAB, DIM, 0.5);
      head = layers.tiedLmHead("embed", DIM, VOCAB);
    } else {
      head = layers.lmHead("head", DIM, VOCAB, 0.5);
    }
    Tensor h = Init.normalFull(3, "hidden", 1.0, targets.size(0), targets.size(1), DIM).requires_grad_(true);
    Tensor loss = head.lossSum(h, targets);
    loss.mul(new Scalar(2.5)).backward();
    Tensor w = layers.parameters().list().get(0).tensor();
    return List.of(loss.detach(), h.grad(), w.grad());
  }

  private static double maxDiff(Tensor a, Tensor b) { return a.sub(b).abs().max().item_double(); }

  @ParameterizedTest
  @ValueSource(longs = {1, 4, 7, 32})
  void chunksEqualTheWholeLogitsLossAndGradients(long chunk) {
    Tensor y = targets(3, 11, chunk);
    for (boolean tied : new boolean[] {false, true}) {
      List<Tensor> plain = run(0, tied, y), chunked = run(chunk, tied, y);
      assertThat(plain.get(0).item_double()).as("the plain loss is not trivial").isGreaterThan(10);
      assertThat(Math.abs(chunked.get(0).item_double() - plain.get(0).item_double()))
          .isLessThanOrEqualTo(1e-6 * plain.get(0).item_double());
      for (int g = 1; g <= 2; g++) { // fp32: within 1e-6 of the gradient's largest element
        double scale = plain.get(g).abs().max().item_double();
        assertThat(scale).isGreaterThan(1e-2);
        assertThat(maxDiff(chunked.get(g), plain.get(g))).as(g == 1 ? "dHidden" : "dWeight").isLessThanOrEqualTo(1e-6 * scale);
      }
    }
  }

  @Test
  void onlyMoreTokensThanAChunkGoThroughChunks() {
    assertThat(ChunkedCrossEntropy.applies(1024, 1024)).isFalse();
    assertThat(ChunkedCrossEntropy.applies(1025, 1024)).isTrue();
    assertThat(ChunkedCrossEntropy.applies(1 << 20, 0)).isFalse();
  }

  @Test
  void withoutGradientsOnlyTheLossIsComputed() {
    Tensor y = targets(2, 9, 5);
    Tensor h = Init.normalFull(3, "hidden", 1.0, 2, 9, DIM);
    try (NoGradGuard ng = new NoGradGuard()) {
      double plain = new DenseLayers(Init.Draws.seeded(11), 0).lmHead("head", DIM, VOCAB, 0.5).lossSum(h, y).item_double();
      Tensor c = new DenseLayers(Init.Draws.seeded(11), 4).lmHead("head", DIM, VOCAB, 0.5).lossSum(h, y);
      assertThat(c.requires_grad()).isFalse();
      assertThat(Math.abs(c.item_double() - plain)).isLessThanOrEqualTo(1e-6 * plain);
    }
  }

  /** A frozen weight served {@code block} rows at a time from a copy (each call overwrites the previous rows' buffer). */
  private static ChunkedCrossEntropy.MadeRows made(Tensor w, long block) {
    Tensor buffer = Tensors.empty(org.bytedeco.pytorch.global.torch.ScalarType.Float, block, w.size(1));
    return new ChunkedCrossEntropy.MadeRows() {
      @Override public long rows() { return w.size(0); }
      @Override public long blockRows() { return block; }
      @Override public Tensor rows(long from, long n) {
        buffer.fill_(new Scalar(Double.NaN)); // a block read after the next call would poison the result
        return buffer.narrow(0, 0, n).copy_(w.narrow(0, from, n));
      }
    };
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 7, 40})
  void aHeadMadeABlockOfRowsAtATimeEqualsTheWholeWeight(long block) {
    Tensor y = targets(3, 11, block);
    Tensor w = Init.normalFull(5, "w", 0.5, VOCAB, DIM);
    for (long chunk : new long[] {0, 4}) {
      Tensor h1 = Init.normalFull(3, "hidden", 1.0, 3, 11, DIM).requires_grad_(true);
      Tensor h2 = Init.normalFull(3, "hidden", 1.0, 3, 11, DIM).requires_grad_(true);
      Tensor plain = ChunkedCrossEntropy.lossSum(h1, w, y, 33, ChunkedCrossEntropy.Vocab.whole());
      Tensor chunked = ChunkedCrossEntropy.lossSum(h2, made(w, block), y, chunk);
      plain.mul(new Scalar(2.5)).backward();
      chunked.mul(new Scalar(2.5)).backward();
      assertThat(plain.item_double()).isGreaterThan(10);
      assertThat(Math.abs(chunked.item_double() - plain.item_double())).isLessThanOrEqualTo(1e-6 * plain.item_double());
      double scale = h1.grad().abs().max().item_double();
      assertThat(scale).isGreaterThan(1e-2);
      assertThat(maxDiff(h2.grad(), h1.grad())).as("dHidden, chunk " + chunk).isLessThanOrEqualTo(1e-6 * scale);
    }
    Tensor h = Init.normalFull(4, "h", 1.0, 5, DIM);
    assertThat(maxDiff(ChunkedCrossEntropy.logits(h, made(w, block)), h.matmul(w.t()))).isLessThanOrEqualTo(1e-5);
  }

  /**
   * Under bf16 autocast each block's product is 16-bit; the blocks' sum into dHidden refused the mix (in-place addmm_
   * is not autocast), so every LoRA run over a compressed base at {@code precision: bf16} failed in its first backward
   * once the vocabulary spanned more than one block (Qwen2.5-0.5B's: 17). Blocks now sum in fp32: the same gradient as
   * one block, to bf16's rounding, and the fp32 one to bf16's precision.
   */
  @Test
  void underBf16AutocastAHeadMadeInBlocksGivesTheGradientOfOneBlock() {
    Tensor y = targets(3, 11, 9);
    Tensor w = Init.normalFull(5, "w", 0.5, VOCAB, DIM);
    Tensor[] grads = new Tensor[3];
    long[] blocks = {VOCAB, 7, VOCAB};
    for (int i = 0; i < 3; i++) {
      Tensor h = Init.normalFull(3, "hidden", 1.0, 3, 11, DIM).requires_grad_(true);
      try (dev.weft.precision.Autocast on = i < 2 ? dev.weft.precision.Autocast.of("bf16") : null) {
        ChunkedCrossEntropy.lossSum(h, made(w, blocks[i]), y, 4).backward();
      }
      grads[i] = h.grad();
    }
    double scale = grads[2].abs().max().item_double();
    assertThat(scale).isGreaterThan(1e-2);
    assertThat(maxDiff(grads[1], grads[0])).as("7-row blocks vs one block, both bf16").isLessThanOrEqualTo(1e-2 * scale);
    assertThat(maxDiff(grads[1], grads[2])).as("bf16 blocks vs fp32").isLessThanOrEqualTo(3e-2 * scale);
  }

  private static Trainer llama(int chunk) {
    return Trainer.model("llama").set("model.config.num_hidden_layers", 1).set("model.config.hidden_size", 32)
        .set("model.config.intermediate_size", 64).set("model.config.num_attention_heads", 4)
        .set("model.config.num_key_value_heads", 2).set("model.config.vocab_size", 256).seed(7).set("train.lossChunk", chunk);
  }

  /** dpo: DPO's per-row summed log-probabilities (−loss of each row), their sum weighted per row, backward-ed. */
  private static double[] decoder(int chunk, Tensor tokens, Tensor y, PackedDocuments docs, boolean dpo) {
    LanguageModel m = dev.weft.train.ModelBuilder.whole(llama(chunk).toSpec());
    Tensor out;
    if (dpo) {
      TensorVector rows = new TensorVector();
      for (long b = 0; b < tokens.size(0); b++) {
        rows.push_back(m.lossSum(tokens.narrow(0, b, 1), y.narrow(0, b, 1), docs.rows(b, 1)).neg().reshape(1));
      }
      out = torch.cat(rows).mul(Tensors.ofDoubles(0.3, -1.7, 2.0));
    } else {
      out = m.lossSum(tokens, y, docs);
    }
    out.sum().backward();
    double[] r = new double[m.parameters().list().size() + 1];
    r[0] = out.sum().item_double();
    int i = 1;
    for (Parameters.Param p : m.parameters().list()) r[i++] = p.tensor().grad().abs().sum().item_double();
    return r;
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aDecoderWithPackedDocumentsTrainsTheSameChunked(boolean dpo) {
    int seq = 13;
    Random r = new Random(9);
    long[] ids = new long[3 * seq];
    for (int i = 0; i < ids.length; i++) ids[i] = r.nextInt(256);
    Tensor tokens = Tensors.ofLongs(ids).view(3, seq);
    Tensor y = targets(3, seq, 21);
    int[] doc = new int[3 * seq];
    for (int i = 0; i < doc.length; i++) doc[i] = (i % seq) < 5 ? 0 : 1; // two documents per row
    PackedDocuments docs = PackedDocuments.of(doc, 3, seq);
    double[] plain = decoder(0, tokens, y, docs, dpo), chunked = decoder(4, tokens, y, docs, dpo);
    assertThat(Math.abs(chunked[0] - plain[0])).isLessThanOrEqualTo(1e-6 * Math.abs(plain[0]));
    for (int i = 1; i < plain.length; i++) {
      assertThat(plain[i]).as("parameter %d has a gradient", i).isGreaterThan(0);
      assertThat(Math.abs(chunked[i] - plain[i])).as("parameter %d", i).isLessThanOrEqualTo(1e-5 * plain[i] + 1e-7);
    }
  }
}
