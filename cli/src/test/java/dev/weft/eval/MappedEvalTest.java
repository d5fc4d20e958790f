package dev.weft.eval;

import dev.weft.testing.WeftCli;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.data.Batches;
import dev.weft.models.CausalLm;
import dev.weft.models.LanguageModel;
import dev.weft.models.hf.HfReference;
import dev.weft.models.hf.HfCheckpoint;
import dev.weft.models.llama.TinyHfLlama;
import dev.weft.precision.Autocast;
import dev.weft.util.Tensors;
import java.nio.file.Path;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weft eval --precision bf16} of a bf16 Hugging Face directory: the matmul weights are the file's bytes as they
 * are (bf16, no fp32 copy), and the loss under bf16 autocast is the fp32 build's within bf16 rounding.
 */
class MappedEvalTest {
  @TempDir Path dir;

  @Test
  void bf16DirectoryIsEvaluatedFromItsOwnBytes() throws Exception {
    try (PointerScope scope = new PointerScope()) {
      Path hf = bf16Directory();
      LanguageModel mapped = ModelSource.open(hf, 16, "bf16").model();
      LanguageModel fp32 = ModelSource.open(hf, 16, "fp32").model();
      HfCheckpoint file = HfCheckpoint.open(hf, "MODEL");
      for (var p : mapped.parameters().list()) {
        Tensor stored = file.read(p.name());
        if (stored.scalar_type().value == torch.ScalarType.BFloat16.value && p.name().endsWith("proj.weight")) {
          assertThat(p.tensor().scalar_type().value).as(p.name()).isEqualTo(torch.ScalarType.BFloat16.value);
          assertThat(torch.equal(p.tensor(), stored)).as(p.name()).isTrue();
        }
      }
      assertThat(fp32.parameters().list().get(0).tensor().scalar_type().value).isEqualTo(torch.ScalarType.Float.value);
      double exact = loss(fp32, "fp32"), bf16 = loss(mapped, "bf16");
      assertThat(Math.abs(bf16 - exact) / exact).as("bf16 %s vs fp32 %s", bf16, exact).isLessThan(2e-2);
    }
  }

  /** {@code weft generate --precision bf16} builds the same mapped model and generates under bf16 autocast. */
  @Test
  void generateTakesTheMappedBuildToo() throws Exception {
    try (PointerScope scope = new PointerScope()) {
      Path hf = bf16Directory();
      WeftCli.Output gen = WeftCli.capture("generate", hf.toString(), "--prompt-ids", "5,17,99,3", "--max-new-tokens", "6",
          "--precision", "bf16");
      assertThat(gen.code()).isZero();
      long[] expected;
      try (Autocast ac = Autocast.of("bf16")) {
        var lm = (CausalLm) ModelSource.open(hf, 10, "bf16").model();
        expected = Generation.generate(lm, new long[] {5, 17, 99, 3}, 6, Generation.Sampling.GREEDY);
      }
      assertThat(gen.out().lines().findFirst().orElse(""))
          .isEqualTo(String.join(",", java.util.Arrays.stream(expected).mapToObj(Long::toString).toList()));
    }
  }

  private Path bf16Directory() throws Exception {
    return TinyHfLlama.bf16Copy(TinyHfLlama.write(dir.resolve("f32"), 3, true, false), dir.resolve("bf16"));
  }

  private static double loss(LanguageModel m, String precision) {
    long[] ids = new long[2 * 17];
    for (int i = 0; i < ids.length; i++) ids[i] = (i * 37 + 11) % TinyHfLlama.VOCAB;
    Tensor all = Tensors.ofLongs(ids).view(2, 17);
    try (Autocast ac = Autocast.of(precision)) {
      return Evaluation.run(m, 1, i -> new Batches.Batch(all.narrow(1, 0, 16).contiguous(), all.narrow(1, 1, 16).contiguous())).loss();
    }
  }
}
