package dev.weft.models.lora;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.data.Batches;
import dev.weft.models.LanguageModel;
import dev.weft.models.Parameters.Param;
import dev.weft.models.llama.TinyHfLlama;
import dev.weft.models.quant.Int8;
import dev.weft.models.quant.Nf4;
import dev.weft.train.ModelBuilder;
import dev.weft.util.Tensors;
import java.nio.file.Path;
import java.util.Random;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Under a compressed LoRA base the token embedding and the head (tied or not) are held in 16 bits, looked up and made in
 * fp32 a block at a time: a Llama trains as the same Llama holding every frozen weight in fp32 at the values the
 * compressed base stands for (projections dequantised, embedding/head rounded to bf16), within 1e-5 per step in the
 * loss and every adapter's gradient, over token chunks of the loss; the fp32 embedding/head are released. Loaded from
 * a file (fp32 or bf16), each weight is compressed from the tensor as read.
 */
class HeldTablesTest {
  private static final int VOCAB = 300, SEQ = 13;

  private static LanguageModel llama(String quantize, boolean tied) {
    return ModelBuilder.whole(Trainer.model("llama").set("model.config.num_hidden_layers", 2).set("model.config.hidden_size", 64)
        .set("model.config.intermediate_size", 96).set("model.config.num_attention_heads", 4)
        .set("model.config.num_key_value_heads", 2).set("model.config.vocab_size", VOCAB)
        .set("model.config.tie_word_embeddings", tied).seed(7).seqLen(SEQ).set("train.lossChunk", 4).lora(4, 8)
        .set("train.lora.quantize", quantize).toSpec());
  }

  private static Tensor roundTrip(Tensor w, String format) {
    return switch (format) {
      case "nf4" -> Nf4.dequantize(Nf4.quantize(w, "w"));
      case "int8" -> Int8.dequantize(Int8.quantize(w, "w"));
      default -> w.to(ScalarType.BFloat16).to(ScalarType.Float);
    };
  }

  private static boolean table(String name) { return name.contains("embed_tokens") || name.startsWith("lm_head"); }

  @ParameterizedTest
  @CsvSource({"bf16,false", "bf16,true", "nf4,false", "nf4,true", "int8,false"})
  void aLlamaOverA16BitEmbeddingAndHeadTrainsAsItsFp32Copy(String format, boolean tied) {
    trainsAsTheFp32Copy(llama(format, tied), llama("none", tied), format, tied ? 1 : 2, VOCAB);
  }

  private static LanguageModel pretrained(Path hf, String quantize) {
    return ModelBuilder.whole(Trainer.model("llama").pretrained(hf).seed(7).seqLen(SEQ).set("train.lossChunk", 4).lora(4, 8)
        .set("train.lora.quantize", quantize).toSpec());
  }

  /** The load compresses each weight from the file's tensor (fp32 or bf16 file), never writing the fp32 parameter. */
  @ParameterizedTest
  @CsvSource({"nf4,false,false", "nf4,true,true", "bf16,false,true", "int8,true,false"})
  void aPretrainedLlamaIsCompressedFromTheFileAsRead(String format, boolean tied, boolean bf16File, @TempDir Path dir) throws Exception {
    Path hf = TinyHfLlama.write(dir.resolve("fp32"), 11, tied, false);
    if (bf16File) hf = TinyHfLlama.bf16Copy(hf, dir.resolve("bf16"));
    trainsAsTheFp32Copy(pretrained(hf, format), pretrained(hf, "none"), format, tied ? 1 : 2, TinyHfLlama.VOCAB);
  }

  private static void trainsAsTheFp32Copy(LanguageModel compressed, LanguageModel reference, String format, int expectTables, int vocab) {
    int tables = 0;
    try (NoGradGuard ng = new NoGradGuard()) {
      for (Param p : reference.parameters().list()) {
        if (!reference.parameters().isFrozen(p.name()) || p.tensor().dim() != 2) continue; // adapters; norms stay fp32
        boolean isTable = table(p.name());
        p.tensor().copy_(roundTrip(p.tensor(), isTable ? "bf16" : format));
        assertThat(compressed.parameters().get(p.name()).tensor().numel()).as(p.name() + "'s fp32 copy released").isZero();
        if (isTable) tables++;
      }
    }
    assertThat(tables).isEqualTo(expectTables);
    Random r = new Random(3);
    long[] ids = new long[2 * SEQ], ys = new long[2 * SEQ];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = r.nextInt(vocab);
      ys[i] = r.nextInt(5) == 0 ? Batches.IGNORE : r.nextInt(vocab);
    }
    Tensor tokens = Tensors.ofLongs(ids).view(2, SEQ), targets = Tensors.ofLongs(ys).view(2, SEQ);
    for (int step = 0; step < 3; step++) {
      double a = step(compressed, tokens, targets), b = step(reference, tokens, targets);
      assertThat(b).isGreaterThan(10);
      assertThat(Math.abs(a - b)).as("loss at step " + step).isLessThanOrEqualTo(1e-5 * Math.abs(b));
      double scale = 0;
      for (Param p : reference.parameters().trainable()) scale = Math.max(scale, p.tensor().grad().abs().max().item_double());
      assertThat(scale).as("the adapters have gradients").isGreaterThan(1e-4);
      for (Param p : reference.parameters().trainable()) {
        Tensor g = compressed.parameters().get(p.name()).tensor().grad(), ref = p.tensor().grad();
        assertThat(g.sub(ref).abs().max().item_double()).as(p.name() + " at step " + step).isLessThanOrEqualTo(1e-5 * scale);
      }
      sgd(compressed);
      sgd(reference);
    }
  }

  private static double step(LanguageModel m, Tensor tokens, Tensor targets) {
    for (Param p : m.parameters().trainable()) if (p.tensor().grad().defined()) p.tensor().grad().zero_();
    Tensor loss = m.lossSum(tokens, targets);
    loss.backward();
    return loss.item_double();
  }

  private static void sgd(LanguageModel m) {
    try (NoGradGuard ng = new NoGradGuard()) {
      for (Param p : m.parameters().trainable()) p.tensor().sub_(p.tensor().grad().mul(new Scalar(1e-2)));
    }
  }
}
