package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.models.LanguageModel;
import dev.weft.models.ModelContext;
import dev.weft.models.ModelFactories;
import dev.weft.models.ModelFactory;
import dev.weft.models.Parameters.Param;
import dev.weft.models.hf.HfCheckpoint;
import dev.weft.models.hf.HuggingFaceFormat;
import dev.weft.models.hf.PretrainedWeights;
import dev.weft.models.layers.DenseLayers;
import dev.weft.models.llama.TinyHfLlama;
import dev.weft.spec.TrainingSpec;
import java.nio.file.Path;
import java.util.List;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fast load gives the weights the old one gave, bit for bit: a model built from {@code model.pretrained} with its
 * parameters left unset (no random draw) and written once from the file equals one built with the seed's random weights
 * and then overwritten; from a bf16 file, the fp32 parameters are the file's values exactly, and the memory-mapped
 * 16-bit build ({@code weft eval --precision bf16}) holds the same values.
 */
class PretrainedLoadExactTest {
  @TempDir Path dir;

  @Test
  void unsetThenLoadedEqualsDrawnThenOverwritten() throws Exception {
    try (PointerScope scope = new PointerScope()) {
      Path f32 = TinyHfLlama.write(dir.resolve("f32"), 7, true, true); // tied, sharded with an index
      TrainingSpec spec = spec(f32);
      assertSameWeights(ModelBuilder.whole(spec), drawnThenOverwritten(spec));

      Path bf16 = TinyHfLlama.bf16Copy(f32, dir.resolve("bf16"));
      LanguageModel fp32 = ModelBuilder.whole(spec(bf16));
      assertSameWeights(fp32, drawnThenOverwritten(spec(bf16)));
      HfCheckpoint file = HfCheckpoint.open(bf16, "MODEL");
      for (Param p : fp32.parameters().list()) {
        assertThat(p.tensor().scalar_type().value).as(p.name()).isEqualTo(torch.ScalarType.Float.value);
        assertThat(torch.equal(p.tensor(), file.read(p.name()).to(torch.ScalarType.Float))).as(p.name()).isTrue();
      }
      LanguageModel mapped = ModelBuilder.frozenWhole(spec(bf16), torch.ScalarType.BFloat16);
      assertSameWeights(mapped, fp32);
    }
  }

  private static TrainingSpec spec(Path hf) {
    return Trainer.model("llama").pretrained(hf).seqLen(16).seed(3).set("data.source", "none").toSpec();
  }

  /** The load as it was: every parameter drawn from the seed first, then overwritten from the file. */
  private static LanguageModel drawnThenOverwritten(TrainingSpec spec) {
    ModelFactory f = ModelFactories.lookup(spec.model().factory());
    LanguageModel m = f.create(spec, new ModelContext(spec.train().seed(), new DenseLayers(spec.train().seed()), spec.parallel(), 0));
    PretrainedWeights.loadInto(m.parameters().list(), HuggingFaceFormat.of(f), Path.of(spec.model().pretrained()));
    return m;
  }

  /** Same names in the same order, and each tensor equal bit for bit once both are fp32 (bf16 → fp32 is exact). */
  private static void assertSameWeights(LanguageModel a, LanguageModel b) {
    List<Param> pa = a.parameters().list(), pb = b.parameters().list();
    assertThat(pa.stream().map(Param::name).toList()).isEqualTo(pb.stream().map(Param::name).toList()).isNotEmpty();
    for (int i = 0; i < pa.size(); i++) {
      Tensor x = pa.get(i).tensor().to(torch.ScalarType.Float), y = pb.get(i).tensor().to(torch.ScalarType.Float);
      assertThat(torch.equal(x, y)).as(pa.get(i).name()).isTrue();
    }
  }
}
