package dev.weft.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.spec.DataSpec;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import dev.weft.spec.SpecException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataSourcesTest {
  @TempDir Path dir;

  /** A user's own data, named by class in the spec: sample i is i, i+1, ... (mod 50). */
  public static final class Ramp implements DataSourceFactory {
    @Override
    public String name() { return "ramp"; }

    @Override
    public Splits open(String location, DataSpec data, long seed) {
      int offset = Integer.parseInt(location);
      return new Splits(new TokenSource() {
        @Override public void sample(long index, int[] out) { for (int k = 0; k < out.length; k++) out[k] = (int) ((offset + index + k) % 50); }
        @Override public String describe() { return "ramp from " + offset; }
        @Override public long vocabSize() { return 50; }
      }, null);
    }
  }

  @Test
  void plainPathsPickTheirKind() throws Exception {
    Path text = Files.writeString(dir.resolve("a.txt"), "hello world, hello data");
    Path npy = dir.resolve("t.npy");
    Npy.write(npy, TokenWidth.INT32, new int[] {5, 6, 7, 8, 9, 10, 11});
    Path shards = dir.resolve("shards");
    try (ShardWriter w = new ShardWriter(shards, 300, "t", -1, 4)) {
      w.append(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
      w.finish();
    }
    assertThat(DataSources.resolve(text.toString()).factory()).isInstanceOf(BuiltinSources.Text.class);
    assertThat(DataSources.resolve("file:" + text).factory()).isInstanceOf(BuiltinSources.Text.class);
    assertThat(DataSources.resolve(npy.toString()).factory()).isInstanceOf(BuiltinSources.Numpy.class);
    assertThat(DataSources.resolve(shards.toString()).factory()).isInstanceOf(BuiltinSources.Shards.class);
    assertThat(DataSources.resolve("arithmetic").factory()).isInstanceOf(BuiltinSources.Arithmetic.class);

    int[] out = new int[4];
    DataSources.open(spec(npy.toString(), 3), 1).train().sample(0, out);
    assertThat(out[0]).isIn(5, 8);
    assertThat(DataSources.vocabSize(spec(shards.toString(), 3))).isEqualTo(300);
    assertThat(DataSources.vocabSize(spec(text.toString(), 3))).isEqualTo(256);
  }

  @Test
  void aUsersSourceIsNamedByItsClass() {
    DataSpec d = spec(Ramp.class.getName() + ":7", 3);
    DataSources.validate(d);
    int[] out = new int[4];
    TokenSource.of(d, 0).sample(2, out);
    assertThat(out).containsExactly(9, 10, 11, 12);
  }

  @Test
  void mixturesFollowTheirWeightsAndSplitEverySource() throws Exception {
    Path a = Files.writeString(dir.resolve("a.txt"), "a".repeat(400));
    Path b = Files.writeString(dir.resolve("b.txt"), "b".repeat(400));
    DataSpec d = new DataSpec("arithmetic", 8, List.of(new DataSpec.Weighted(a.toString(), 3), new DataSpec.Weighted(b.toString(), 1)), 0.1);
    DataSources.validate(d);
    Splits s = DataSources.open(d, 1);
    int[] out = new int[9];
    int as = 0;
    for (int i = 0; i < 1000; i++) {
      s.train().sample(i, out);
      if (out[0] == 'a') as++;
    }
    assertThat(as).isEqualTo(750);
    assertThat(s.validation()).isNotNull();
    assertThat(s.train().describe()).startsWith("mixture of 75.0%");
  }

  @Test
  void theDslWritesAMixThatSurvivesTheSpecFileWorkersRead() throws Exception {
    Path a = Files.writeString(dir.resolve("a.txt"), "a".repeat(400));
    java.util.Map<String, Double> mix = new java.util.LinkedHashMap<>();
    mix.put(a.toString(), 2.0);
    mix.put("arithmetic", 1.0);
    TrainingSpec s = Trainer.model("gpt").dataMix(mix).validationSplit(0.2).seqLen(16).toSpec();
    assertThat(s.data().sources()).containsExactly(new DataSpec.Weighted(a.toString(), 2), new DataSpec.Weighted("arithmetic", 1));
    assertThat(s.data().validation()).isEqualTo(0.2);
    assertThat(SpecIO.bind(SpecIO.toTree(s)).data()).isEqualTo(s.data());
  }

  @Test
  void badSourcesAreOneLineNamingTheField() {
    assertThatThrownBy(() -> DataSources.validate(spec(dir.resolve("missing.txt").toString(), 8)))
        .isInstanceOf(SpecException.class).hasMessageStartingWith("data.source:").hasMessageNotContaining("\n");
    assertThatThrownBy(() -> DataSources.validate(spec("com.example.NoSuchSource:x", 8)))
        .isInstanceOf(SpecException.class).hasMessageContaining("cannot load class com.example.NoSuchSource");
    assertThatThrownBy(() -> DataSources.validate(spec(dir.toString(), 8)))
        .isInstanceOf(SpecException.class).hasMessageContaining("weft data prepare");
    assertThatThrownBy(() -> DataSources.validate(new DataSpec("arithmetic", 8, List.of(), 1.5)))
        .isInstanceOf(SpecException.class).hasMessageStartingWith("data.validation:");
  }

  @Test
  void dataTooShortForOneWindowSaysWhatToLower() throws Exception {
    Path text = Files.writeString(dir.resolve("short.txt"), "tiny");
    assertThatThrownBy(() -> DataSources.open(spec(text.toString(), 64), 0))
        .isInstanceOf(SpecException.class).hasMessageStartingWith("data.seqLen:").hasMessageContaining("lower data.seqLen");
  }

  private static DataSpec spec(String source, int seqLen) { return new DataSpec(source, seqLen, List.of(), 0); }
}
