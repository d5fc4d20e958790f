package dev.weft.cli;

import static dev.weft.testing.WeftCli.assertOneLine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.data.Batches;
import dev.weft.data.DataSources;
import dev.weft.data.Npy;
import dev.weft.data.ShardIndex;
import dev.weft.data.ShardWriter;
import dev.weft.data.TokenSource;
import dev.weft.data.TokenWidth;
import dev.weft.spec.DataSpec;
import dev.weft.testing.WeftCli;
import dev.weft.util.Tensors;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40, items 2, 3, 8 and 9 on the training and input side: samples without a target are left out and data
 * without any is refused (exit 2); token ids a model cannot embed are refused before any rank starts, naming file and
 * offset; a JSONL line past Jackson's default 20 M-character string limit is read; a Parquet name is taken literally.
 */
class DataInputChecksTest {
  @TempDir Path dir;
  private Path spec;

  @BeforeEach
  void spec() throws Exception {
    spec = Files.writeString(dir.resolve("s.yaml"), "name: t\nparallel:\n  dp: 1\ntrain:\n  globalBatch: 4\n  steps: 2\n");
  }

  private WeftCli.Run plan(String source) {
    return WeftCli.run("plan", spec.toString(), "--set", "data.source=" + source, "--set", "data.seqLen=8");
  }

  /** One conversation of 40 tokens whose last 5 are the answer, and one of 6 tokens, all answer but the first. */
  private Path chatShards(boolean anyTarget) {
    Path out = dir.resolve(anyTarget ? "chat" : "prompts");
    try (ShardWriter w = new ShardWriter(out, 256, "test", -1, 1000, true)) {
      int[] ids = new int[40];
      boolean[] flags = new boolean[40];
      for (int i = 0; i < 40; i++) {
        ids[i] = i + 1;
        flags[i] = anyTarget && i >= 35;
      }
      w.append(ids, flags);
      w.endDocument(false);
      boolean[] short6 = new boolean[6];
      Arrays.fill(short6, 1, 6, anyTarget);
      w.append(new int[] {100, 101, 102, 103, 104, 105}, short6);
      w.endDocument(false);
      w.finish();
    }
    return out;
  }

  @Test
  void samplesWithoutATargetAreNotSamplesAndDataWithoutAnyIsRefused() {
    TokenSource s = DataSources.open(new DataSpec(chatShards(true).toString(), 8, null, 0, "true"), 0).train();
    // 40 tokens make 4 full windows of 9 and a piece of 4 (too long to share a window with the 6): the first 3 windows
    // are prompt only and left out; the 4th (its last token is the answer's first), the piece and the 6 stay
    long n = s.distinctSamples();
    assertThat(n).isEqualTo(3);
    Batches.Batch b = Batches.make(s, 0, (int) n, 8);
    long[] tg = Tensors.toLongs(b.targets());
    for (int k = 0; k < n; k++) {
      long[] row = Arrays.copyOfRange(tg, k * 8, k * 8 + 8);
      assertThat(Arrays.stream(row).anyMatch(t -> t != Batches.IGNORE)).as("sample %d has a target", k).isTrue();
    }
    Path prompts = chatShards(false);
    assertOneLine(plan(prompts.toString()), 2, "data.source", "holds no token to learn", "--train-on all");
    // read as a stream too (windows cut end to end)
    assertThatThrownBy(() -> dev.weft.data.Windows.split(ShardIndex.read(prompts).open(prompts), ShardIndex.read(prompts).openFlags(prompts),
        "prompts", 256, 8, 0, 0)).hasMessageContaining("holds no token to learn");
  }

  @Test
  void dataTruncationKeepsTheStartOrTheEndOrDropsALongDocument() {
    Path shards = chatShards(true);
    TokenSource left = DataSources.open(new DataSpec(shards.toString(), 8, null, 0, "true", 0, "left"), 0).train();
    assertThat(left.distinctSamples()).isEqualTo(2); // the last 9 tokens of the 40 (the answer in them), and the 6
    java.util.Set<String> samples = new java.util.HashSet<>();
    for (int k = 0; k < 2; k++) {
      int[] out = new int[9];
      left.sample(k, out);
      samples.add(Arrays.toString(out));
    }
    assertThat(samples).contains(Arrays.toString(new int[] {32, 33, 34, 35, 36, 37, 38, 39, 40}));
    // the first 9 tokens are prompt only: that sample is left out, as is the dropped document
    for (String how : new String[] {"right", "drop"}) {
      TokenSource s = DataSources.open(new DataSpec(shards.toString(), 8, null, 0, "true", 0, how), 0).train();
      assertThat(s.distinctSamples()).as(how).isEqualTo(1);
    }
    TokenSource longer = DataSources.open(new DataSpec(shards.toString(), 8, null, 0, "true", 20, "right"), 0).train();
    assertThat(longer.distinctSamples()).as("20 tokens kept: 2 full windows of prompt, a piece of 2 and the 6").isEqualTo(1);
    assertOneLine(WeftCli.run("plan", spec.toString(), "--set", "data.truncation=middle"), 2, "data.truncation", "middle");
    assertOneLine(WeftCli.run("plan", spec.toString(), "--set", "data.maxLength=100"), 2, "data.maxLength", "data.truncation");
  }

  @Test
  void tokenIdsTheModelCannotEmbedAreRefusedNamingFileAndOffset() throws Exception {
    Path npy = dir.resolve("tokens.npy");
    int[] ids = new int[200];
    for (int i = 0; i < ids.length; i++) ids[i] = i % 200;
    Npy.write(npy, TokenWidth.UINT16, ids);
    assertThat(plan(npy.toString()).code()).as("ids below 256 are fine").isZero();
    ids[150] = 300;
    Npy.write(npy, TokenWidth.UINT16, ids);
    assertOneLine(plan(npy.toString()), 2, "data.source", npy + " token 150 holds id 300", "vocabulary of 256");

    Path shards = dir.resolve("shards");
    try (ShardWriter w = new ShardWriter(shards, 256, "test", -1, 100)) {
      w.append(Arrays.copyOf(ids, 150));
      w.endDocument();
      w.append(new int[150]);
      w.endDocument();
      w.finish();
    }
    Path second = shards.resolve(ShardIndex.read(shards).shards().get(2).file());
    try (RandomAccessFile f = new RandomAccessFile(second.toFile(), "rw")) { // an edited shard: token 7 of the third
      f.seek(Npy.readHeader(second).dataOffset() + 7 * 2);
      f.write(new byte[] {(byte) 0x2C, 0x01}); // 300, little-endian
    }
    assertOneLine(plan(shards.toString()), 2, "data.source", second + " token 7 holds id 300");
    assertOneLine(WeftCli.run("train", spec.toString(), "--set", "data.source=" + shards, "--set", "data.seqLen=8", "--run-dir",
        dir.resolve("run").toString()), 2, second + " token 7 holds id 300");
  }

  @Test
  void aJsonlLineLongerThanJacksonsDefaultStringLimitIsRead() throws Exception {
    int n = 20_000_001;
    Path in = dir.resolve("long.jsonl");
    Files.writeString(in, "{\"text\": \"" + "a".repeat(n) + "\"}\n{\"text\": \"bc\"}\n");
    WeftCli.Output r = WeftCli.capture("data", "prepare", "--tokenizer", "bytes", "--input", in.toString(), "--out",
        dir.resolve("o").toString(), "--separator", "none");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(ShardIndex.read(dir.resolve("o")).tokens()).isEqualTo(n + 2);
  }

  @Test
  void aParquetNameWithGlobCharactersIsThatFileAlone() throws Exception {
    Path d = Files.createDirectories(dir.resolve("glob"));
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
      for (String[] f : new String[][] {{"a", "from a"}, {"b", "from b, longer"}, {"[ab]", "the literal one"}}) {
        String path = d.resolve(f[0] + ".parquet").toString().replace("'", "''");
        s.execute("COPY (SELECT '" + f[1] + "' AS text) TO '" + path + "' (FORMAT parquet)");
      }
    }
    Path literal = d.resolve("[ab].parquet");
    assertThat(literal).exists();
    WeftCli.Output r = WeftCli.capture("data", "prepare", "--tokenizer", "bytes", "--input", literal.toString(), "--out",
        dir.resolve("o").toString(), "--separator", "none");
    assertThat(r.code()).as(r.err()).isZero();
    ShardIndex ix = ShardIndex.read(dir.resolve("o"));
    assertThat(ix.documents()).isEqualTo(1);
    assertThat(ix.tokens()).isEqualTo("the literal one".length());
  }
}
