package dev.weft.data;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.spec.DataSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A held-out set read whole: batches past its end add samples without targets, so no sample counts twice. */
class WholeSetTest {
  @TempDir Path dir;

  @Test
  void samplesPastTheEndHaveNoTargets() throws Exception {
    Path text = Files.writeString(dir.resolve("held.txt"), "the quick brown fox jumps over the lazy dog, twice over");
    TokenSource source = DataSources.open(new DataSpec(text.toString(), 8, List.of(), 0), 1).train();
    WholeSet whole = WholeSet.of(source);
    long n = whole.size();
    assertThat(n).isEqualTo(source.distinctSamples()).isGreaterThan(1);
    Batches.Batch b = Batches.make(whole, n - 1, 3, 8);
    long[] targets = targets(b.targets());
    for (int t = 0; t < 8; t++) assertThat(targets[t]).as("the last real sample keeps its targets").isNotEqualTo(Batches.IGNORE);
    for (int t = 8; t < 24; t++) assertThat(targets[t]).as("padding past the end").isEqualTo(Batches.IGNORE);
    assertThat(targets(Batches.make(whole, 0, 1, 8).targets())).isEqualTo(targets(Batches.make(source, 0, 1, 8).targets()));
  }

  @Test
  void anEndlessSourceIsNoWholeSet() {
    assertThat(WholeSet.of(new ArithmeticCorpus(3))).isNull();
  }

  private static long[] targets(Tensor t) { return dev.weft.util.Tensors.toLongs(t); }
}
