package dev.weft.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.error.WeftException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardWriterTest {
  @TempDir Path dir;

  @Test
  void documentsSpanShardsAndReadBackEndToEndWithSeparators() {
    List<Integer> expect = new ArrayList<>();
    ShardIndex ix;
    try (ShardWriter w = new ShardWriter(dir, 1000, "test", 999, 7)) {
      for (int d = 0; d < 5; d++) {
        int[] ids = new int[d * 3 + 1];
        for (int k = 0; k < ids.length; k++) ids[k] = d * 100 + k;
        w.append(ids);
        w.endDocument();
        for (int id : ids) expect.add(id);
        expect.add(999);
      }
      ix = w.finish();
    }
    assertThat(ix.tokens()).isEqualTo(expect.size());
    assertThat(ix.documents()).isEqualTo(5);
    assertThat(ix.dtype()).isEqualTo("uint16");
    assertThat(ix.shards()).hasSize((expect.size() + 6) / 7);
    assertThat(ix.shards().stream().mapToLong(ShardIndex.Shard::tokens).sum()).isEqualTo(expect.size());
    // each shard is a plain .npy file
    assertThat(TokenArray.npy(dir.resolve(ix.shards().get(0).file())).size()).isEqualTo(7);
    TokenArray all = ShardIndex.read(dir).open(dir);
    int[] back = new int[expect.size()];
    all.read(0, back);
    assertThat(back).containsExactly(expect.stream().mapToInt(Integer::intValue).toArray());
  }

  @Test
  void aLargeVocabularyIsStoredAsUint32() {
    try (ShardWriter w = new ShardWriter(dir, 70_000, "test", -1, 100)) {
      w.append(new int[] {69_999, 0, 65_536});
      w.endDocument();
      assertThat(w.finish().dtype()).isEqualTo("uint32");
    }
    TokenArray a = ShardIndex.read(dir).open(dir);
    assertThat(new int[] {a.get(0), a.get(1), a.get(2)}).containsExactly(69_999, 0, 65_536);
  }

  @Test
  void trainingReadsTheLastWindowOfShardsPastTwoGigabytes() throws Exception {
    long small = 1000, big = 1_200_000_001L; // 2.4 GB of uint16 in the second shard, sparse on disk
    int seqLen = 2;
    long windows = (small + big - 1) / seqLen;
    long lastStart = (windows - 1) * seqLen - small; // in the big shard
    Npy.write(dir.resolve("shard-00000.npy"), TokenWidth.UINT16, new int[(int) small]);
    Path bigShard = dir.resolve("shard-00001.npy");
    try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(bigShard.toFile(), "rw")) {
      byte[] header = Npy.header(TokenWidth.UINT16, big);
      raf.write(header);
      raf.setLength(header.length + big * 2);
      raf.seek(header.length + lastStart * 2);
      raf.write(new byte[] {7, 0, 8, 0, 9, 0});
    }
    new ShardIndex(ShardIndex.FORMAT, 1, "uint16", 50_000, "test", -1, 1, small + big,
        List.of(new ShardIndex.Shard("shard-00000.npy", small), new ShardIndex.Shard("shard-00001.npy", big)))
        .write(dir);
    dev.weft.spec.DataSpec spec = new dev.weft.spec.DataSpec(dir.toString(), seqLen, List.of(), 1e-9);
    Splits s = DataSources.open(spec, 0);
    assertThat(s.validation().distinctSamples()).isEqualTo(1);
    int[] out = new int[seqLen + 1];
    s.validation().sample(0, out);
    assertThat(out).containsExactly(7, 8, 9);
    assertThat(s.train().distinctSamples()).isEqualTo(windows - 1);
    s.train().sample(windows - 2, out); // any window: reads without error
  }

  @Test
  void aFailedPreparationLeavesNoIndex() {
    try (ShardWriter w = new ShardWriter(dir, 10, "test", -1, 100)) {
      w.append(new int[] {1, 2});
      assertThatThrownBy(() -> w.append(new int[] {10})).isInstanceOf(WeftException.class).hasMessageContaining("vocabulary of 10");
    }
    assertThat(Files.exists(dir.resolve(ShardIndex.FILE))).isFalse();
    assertThat(ShardIndex.isShardDirectory(dir)).isFalse();
  }

  /** Issue 31 item 3: a tampered index naming a file outside its directory is refused before anything is opened. */
  @Test
  void anIndexNamingAFileOutsideItsDirectoryIsRefused(@TempDir Path tmp) {
    Path d = tmp.resolve("shards");
    new ShardIndex(ShardIndex.FORMAT, 1, "uint16", 256, "bytes", -1, 1, 10,
        List.of(new ShardIndex.Shard("../../../../etc/passwd", 10))).write(mkdirs(d));
    assertThatThrownBy(() -> ShardIndex.read(d).open(d)).isInstanceOf(WeftException.class)
        .hasMessageContaining("names '../../../../etc/passwd', which is not a plain file name inside its directory");
  }

  private static Path mkdirs(Path d) {
    try {
      return Files.createDirectories(d);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
