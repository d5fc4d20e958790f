package dev.weft.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.spec.DataSpec;
import dev.weft.spec.SpecException;
import dev.weft.util.Tensors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Document ends recorded by the shard writer, and samples made of whole documents from them: packed (several per
 * sample) or padded (one per sample), long documents cut into pieces, never dropped; padding is never a target, and
 * positions restart at each document.
 */
class PackedSamplesTest {
  private static final int SEQ = 16, SEPARATOR = 99;
  @TempDir Path dir;

  /** Random chat-like documents (one longer than a sample), separator-terminated, over shards of 37 tokens. */
  private static List<int[]> write(Path out) {
    List<int[]> docs = new ArrayList<>();
    Random r = new Random(8);
    try (ShardWriter w = new ShardWriter(out, 100, "test", SEPARATOR, 37, true)) {
      for (int d = 0; d < 30; d++) {
        int n = d == 7 ? 3 * SEQ + 5 : 1 + r.nextInt(SEQ);
        int[] ids = new int[n];
        boolean[] flags = new boolean[n];
        for (int k = 0; k < n; k++) {
          ids[k] = r.nextInt(SEPARATOR);
          flags[k] = true;
        }
        w.append(ids, flags);
        w.endDocument(true);
        int[] whole = java.util.Arrays.copyOf(ids, n + 1);
        whole[n] = SEPARATOR;
        docs.add(whole);
      }
      w.finish();
    }
    return docs;
  }

  @Test
  void documentEndsAreRecordedAcrossShards() {
    List<int[]> docs = write(dir);
    ShardIndex ix = ShardIndex.read(dir);
    assertThat(ix.shards()).hasSizeGreaterThan(3).allSatisfy(s -> assertThat(s.documents()).endsWith(".docs.npy"));
    long[] ends = ix.documentEnds(dir);
    long at = 0;
    assertThat(ends).hasSize(docs.size());
    for (int d = 0; d < docs.size(); d++) {
      at += docs.get(d).length;
      assertThat(ends[d]).as("document %d", d).isEqualTo(at);
    }
  }

  @Test
  void chatShardsArePackedFromWholeDocumentsByDefault() {
    List<int[]> docs = write(dir);
    TokenSource train = DataSources.open(new DataSpec(dir.toString(), SEQ, List.of(), 0), 3).train();
    assertThat(train.packed()).isTrue();
    long total = docs.stream().mapToLong(d -> d.length).sum();
    assertThat(train.distinctSamples()).isLessThan(docs.size()).isGreaterThanOrEqualTo((total + SEQ) / (SEQ + 1));
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < train.distinctSamples(); i++) {
      for (int[] piece : pieces(train, i)) seen.merge(java.util.Arrays.toString(piece), 1, Integer::sum);
    }
    Map<String, Integer> expected = new HashMap<>();
    for (int[] d : docs) {
      for (int from = 0; from < d.length; from += SEQ + 1) {
        expected.merge(java.util.Arrays.toString(java.util.Arrays.copyOfRange(d, from, Math.min(d.length, from + SEQ + 1))), 1, Integer::sum);
      }
    }
    assertThat(seen).as("every document once, whole or in sample-sized pieces").isEqualTo(expected);
  }

  @Test
  void batchesRestartPositionsAndNeverTargetAcrossDocumentsOrPadding() {
    write(dir);
    TokenSource train = DataSources.open(new DataSpec(dir.toString(), SEQ, List.of(), 0), 3).train();
    int n = (int) train.distinctSamples();
    Batches.Batch b = Batches.make(train, 0, n, SEQ);
    long[] in = Tensors.toLongs(b.tokens()), tg = Tensors.toLongs(b.targets());
    long[] pos = Tensors.toLongs(b.documents().positions()), ids = Tensors.toLongs(b.documents().ids());
    int restarts = 0;
    for (int s = 0; s < n; s++) {
      for (int t = 0; t < SEQ; t++) {
        int k = s * SEQ + t;
        boolean starts = t == 0 || ids[k] != ids[k - 1];
        assertThat(pos[k]).isEqualTo(starts ? 0 : pos[k - 1] + 1);
        if (t > 0 && starts) {
          restarts++;
          assertThat(tg[k - 1]).as("the last token of a document predicts nothing").isEqualTo(Batches.IGNORE);
        }
        if (in[k] == SEPARATOR && t + 1 < SEQ && ids[k + 1] == ids[k]) {
          assertThat(in[k + 1]).as("padding follows a document's end").isZero();
        }
      }
    }
    assertThat(restarts).as("samples hold several documents").isGreaterThan(n / 2);
  }

  @Test
  void paddedSamplesHoldOneDocumentEach() {
    List<int[]> docs = write(dir);
    TokenSource train = DataSources.open(new DataSpec(dir.toString(), SEQ, List.of(), 0, "false"), 3).train();
    long expected = docs.stream().mapToLong(d -> (d.length + SEQ) / (SEQ + 1)).sum();
    assertThat(train.distinctSamples()).isEqualTo(expected);
    for (int i = 0; i < expected; i++) assertThat(pieces(train, i)).hasSize(1);
  }

  @Test
  void packingIsRefusedWhereThereAreNoDocuments() throws Exception {
    Path npy = dir.resolve("tokens.npy");
    Npy.write(npy, TokenWidth.UINT16, new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
    assertThatThrownBy(() -> DataSources.open(new DataSpec(npy.toString(), 4, List.of(), 0, "true"), 1))
        .isInstanceOf(SpecException.class).hasMessageContaining("data.packing");
    Path old = dir.resolve("old");
    Files.createDirectories(old);
    Npy.write(old.resolve("shard-00000.npy"), TokenWidth.UINT16, new int[] {5, 6, 7, 8, 9});
    Files.writeString(old.resolve(ShardIndex.FILE), "{\"format\": \"weft-token-shards\", \"version\": 1, \"dtype\": \"uint16\","
        + " \"vocabSize\": 10, \"tokenizer\": \"t\", \"separator\": -1, \"documents\": 1, \"tokens\": 5,"
        + " \"shards\": [{\"file\": \"shard-00000.npy\", \"tokens\": 5}]}");
    assertThatThrownBy(() -> DataSources.open(new DataSpec(old.toString(), 2, List.of(), 0, "true"), 1))
        .isInstanceOf(SpecException.class).hasMessageContaining("data.packing").hasMessageContaining("prepare the data again");
    assertThat(DataSources.open(new DataSpec(old.toString(), 2, List.of(), 0), 1).train().packed()).isFalse();
  }

  @Test
  void theSpecTakesTrueFalseOrAuto() {
    assertThat(Trainer.model("gpt").set("data.packing", true).toSpec().data().packing()).isEqualTo("true");
    assertThat(Trainer.model("gpt").toSpec().data().packing()).isEqualTo(DataSpec.AUTO);
    assertThatThrownBy(() -> Trainer.model("gpt").set("data.packing", "yes").toSpec())
        .isInstanceOf(SpecException.class).hasMessageContaining("data.packing");
  }

  /** The document pieces of sample {@code i} (padding left out). */
  private static List<int[]> pieces(TokenSource s, long i) {
    int[] out = new int[SEQ + 1], doc = new int[SEQ + 1];
    boolean[] targets = new boolean[SEQ + 1];
    s.sample(i, out, targets, doc);
    List<int[]> pieces = new ArrayList<>();
    int from = 0;
    for (int t = 1; t <= SEQ + 1; t++) {
      if (t == SEQ + 1 || doc[t] != doc[from]) {
        if (targets[from]) pieces.add(java.util.Arrays.copyOfRange(out, from, t)); // padding is never a target
        from = t;
      }
    }
    return pieces;
  }
}
