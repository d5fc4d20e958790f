package dev.weft.data;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.spec.DataSpec;
import dev.weft.util.Tensors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Target flags stored beside the ids in token shards, and the {@code -100} targets batches make of them. */
class FlaggedShardsTest {
  @TempDir Path dir;

  /** Writes random documents with random flags over several shards; returns every token's id and flag in order. */
  private static List<int[]> writeFlagged(Path out, int separator, long shardTokens) {
    List<int[]> all = new ArrayList<>(); // {id, flag}
    Random rnd = new Random(27);
    try (ShardWriter w = new ShardWriter(out, 500, "test", separator, shardTokens, true)) {
      for (int d = 0; d < 40; d++) {
        int n = 1 + rnd.nextInt(30);
        int[] ids = new int[n];
        boolean[] flags = new boolean[n];
        for (int k = 0; k < n; k++) {
          ids[k] = rnd.nextInt(499);
          flags[k] = rnd.nextInt(3) == 0;
          all.add(new int[] {ids[k], flags[k] ? 1 : 0});
        }
        w.append(ids, flags);
        w.endDocument(false);
        if (separator >= 0) all.add(new int[] {separator, 0});
      }
      w.finish();
    }
    return all;
  }

  @Test
  void flagsLieBesideEachShardAndReadBackTokenForToken() {
    List<int[]> all = writeFlagged(dir, 499, 37);
    ShardIndex ix = ShardIndex.read(dir);
    assertThat(ix.flagged()).isTrue();
    assertThat(ix.shards()).allSatisfy(s -> assertThat(s.flags()).isEqualTo(s.file().replace(".npy", ".flags.npy")));
    TokenArray ids = ix.open(dir), flags = ix.openFlags(dir);
    assertThat(ids.size()).isEqualTo(all.size());
    assertThat(flags.size()).isEqualTo(all.size());
    for (int i = 0; i < all.size(); i++) {
      assertThat(new int[] {ids.get(i), flags.get(i)}).as("token %d", i).containsExactly(all.get(i));
    }
  }

  @Test
  void batchesOfFlaggedShardsCarryIgnoreExactlyWhereTheNextTokenIsNoTarget() {
    List<int[]> all = writeFlagged(dir, -1, 50);
    int seqLen = 8, batch = 3;
    ShardIndex ix = ShardIndex.read(dir); // the token stream cut end to end (chat data is packed by default: PackedSamplesTest)
    TokenSource train = Windows.split(ix.open(dir), ix.openFlags(dir), "flagged", ix.vocabSize(), seqLen, 0, 5).train();
    assertThat(train.describe()).contains("with target flags");
    int ignored = 0;
    for (long first = 0; first < 30; first += batch) {
      Batches.Batch b = Batches.make(train, first, batch, seqLen);
      long[] in = Tensors.toLongs(b.tokens()), tg = Tensors.toLongs(b.targets());
      for (int s = 0; s < batch; s++) {
        int start = windowStart(all, in, s * seqLen, seqLen);
        for (int t = 0; t < seqLen; t++) {
          int[] next = all.get(start + t + 1);
          long expect = next[1] == 1 ? next[0] : Batches.IGNORE;
          assertThat(tg[s * seqLen + t]).as("sample %d target %d", first + s, t).isEqualTo(expect);
          if (expect == Batches.IGNORE) ignored++;
        }
      }
    }
    assertThat(ignored).as("some targets are ignored, not all").isBetween(1, 30 * seqLen - 1);
  }

  /** The window of the stream whose inputs are {@code in[from, from + seqLen)} (windows start at multiples of seqLen). */
  private static int windowStart(List<int[]> all, long[] in, int from, int seqLen) {
    outer:
    for (int w = 0; (w + 1) * seqLen < all.size(); w++) {
      for (int t = 0; t < seqLen; t++) if (all.get(w * seqLen + t)[0] != in[from + t]) continue outer;
      return w * seqLen;
    }
    throw new AssertionError("no window matches the batch's inputs");
  }

  @Test
  void shardsWithoutFlagsAreAllTargetsAndTheirIndexIsUnchanged() throws Exception {
    try (ShardWriter w = new ShardWriter(dir, 100, "test", -1, 1000)) {
      w.append(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
      w.endDocument();
      w.finish();
    }
    assertThat(Files.readString(dir.resolve(ShardIndex.FILE))).doesNotContain("flags");
    ShardIndex ix = ShardIndex.read(dir);
    assertThat(ix.flagged()).isFalse();
    assertThat(ix.openFlags(dir)).isNull();
    TokenSource train = DataSources.open(new DataSpec(dir.toString(), 4, List.of(), 0), 1).train();
    Batches.Batch b = Batches.make(train, 0, 2, 4);
    assertThat(Tensors.toLongs(b.targets())).doesNotContain((long) Batches.IGNORE);
  }

  @Test
  void anIndexWrittenBeforeFlagsExistedStillReads() throws Exception {
    Npy.write(dir.resolve("shard-00000.npy"), TokenWidth.UINT16, new int[] {5, 6, 7, 8, 9});
    Files.writeString(dir.resolve(ShardIndex.FILE), "{\"format\": \"weft-token-shards\", \"version\": 1, \"dtype\": \"uint16\","
        + " \"vocabSize\": 10, \"tokenizer\": \"t\", \"separator\": -1, \"documents\": 1, \"tokens\": 5,"
        + " \"shards\": [{\"file\": \"shard-00000.npy\", \"tokens\": 5}]}");
    ShardIndex ix = ShardIndex.read(dir);
    assertThat(ix.flagged()).isFalse();
    boolean[] flags = new boolean[3];
    int[] out = new int[3];
    DataSources.open(new DataSpec(dir.toString(), 2, List.of(), 0), 1).train().sample(0, out, flags);
    assertThat(flags).containsOnly(true);
  }
}
