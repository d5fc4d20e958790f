package dev.weft.cli;

import dev.weft.testing.WeftCli;
import dev.weft.testing.WeftCli.Output;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.data.ShardIndex;
import dev.weft.data.TokenArray;
import dev.weft.tokenizer.TinyTokenizers;
import dev.weft.tokenizer.Tokenizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code weft data prepare} with a tokenizer.json, then {@code weft train} on the shards it wrote. */
class DataPrepareCliTest {
  @TempDir Path dir;


  private Path tokenizer() throws Exception {
    return TinyTokenizers.byteLevelBpe(dir.resolve("tokenizer.json"), List.of("t h", "th e", "Ġ the", "a n", "Ġ an", "Ġan d"));
  }

  private static String text(int lines) {
    return IntStream.range(0, lines).mapToObj(i -> "the cat and the dog " + i % 7 + " sat on the mat and ate " + i % 5 + ".\n")
        .reduce("", String::concat);
  }

  @Test
  void textShardsHoldExactlyTheTokenizersIdsThenTheSeparator() throws Exception {
    Path tok = tokenizer();
    Path a = Files.writeString(dir.resolve("a.txt"), text(40));
    Path b = dir.resolve("b.jsonl");
    Files.writeString(b, "{\"body\": \"the end\", \"id\": 1}\n\n{\"body\": \"and ü\", \"id\": 2}\n");
    Path empty = Files.writeString(dir.resolve("empty.txt"), "");
    Path out = dir.resolve("shards");
    Output r = WeftCli.capture("data", "prepare", "--tokenizer", tok.toString(), "--input", a.toString(), empty.toString(), b.toString(), "--field", "body",
        "--out", out.toString(), "--shard-tokens", "100");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("100%", "4 documents");

    ShardIndex ix = ShardIndex.read(out);
    int eot = 256 + 6;
    assertThat(ix.separator()).isEqualTo(eot);
    assertThat(ix.vocabSize()).isEqualTo(eot + 1);
    int[] expect;
    try (Tokenizer t = Tokenizer.open(tok.toString())) {
      expect = IntStream.concat(IntStream.concat(IntStream.of(t.encode(Files.readString(a))), IntStream.of(eot, eot)),
          IntStream.concat(IntStream.concat(IntStream.of(t.encode("the end")), IntStream.of(eot)),
              IntStream.concat(IntStream.of(t.encode("and ü")), IntStream.of(eot)))).toArray();
    }
    TokenArray all = ix.open(out);
    int[] got = new int[(int) all.size()];
    all.read(0, got);
    assertThat(got).containsExactly(expect);
    assertThat(ix.shards()).hasSize((expect.length + 99) / 100);
  }

  @Test
  void userMistakesExitTwoWithOneLine() throws Exception {
    Path a = Files.writeString(dir.resolve("a.jsonl"), "{\"text\": 3}\n");
    Output noField = WeftCli.capture("data", "prepare", "--tokenizer", "bytes", "--input", a.toString(), "--out", dir.resolve("o").toString());
    assertThat(noField.code()).isEqualTo(2);
    assertThat(noField.err().strip()).startsWith("weft: --field:").doesNotContain("\n");
    Output noTokenizer = WeftCli.capture("data", "prepare", "--tokenizer", dir.resolve("none.json").toString(), "--input", a.toString(),
        "--out", dir.resolve("o2").toString());
    assertThat(noTokenizer.code()).isEqualTo(2);
    assertThat(noTokenizer.err().strip()).startsWith("weft: --tokenizer:").doesNotContain("\n");
    assertThat(ShardIndex.isShardDirectory(dir.resolve("o"))).isFalse();
  }

  @Test
  @Tag("slow")
  void trainReadsThePreparedShards() throws Exception {
    Path out = dir.resolve("shards");
    Path a = Files.writeString(dir.resolve("a.txt"), text(200));
    Output prep = WeftCli.capture("data", "prepare", "--tokenizer", tokenizer().toString(), "--input", a.toString(), "--out", out.toString());
    assertThat(prep.code()).as(prep.err()).isZero();

    Path spec = Files.writeString(dir.resolve("spec.yaml"), String.join("\n",
        "name: shards", "model:", "  factory: gpt", "  config: {size: tiny, layers: 2, hidden: 32, heads: 2}",
        "train: {steps: 4, globalBatch: 4, logEvery: 1, warmup: 0}", "data:", "  source: " + out, "  seqLen: 16",
        "  validation: 0.1", ""));
    Output small = WeftCli.capture("train", spec.toString(), "--run-dir", dir.resolve("bad").toString());
    assertThat(small.code()).isEqualTo(2);
    assertThat(small.err()).contains("model.config.vocab", "263");

    Path run = dir.resolve("run");
    Output train = WeftCli.capture("train", spec.toString(), "--set", "model.config.vocab=264", "--run-dir", run.toString());
    assertThat(train.code()).as(train.out() + train.err()).isZero();
    assertThat(train.out() + train.err()).contains("token shards " + out);
    List<String> rows = Files.readAllLines(run.resolve("metrics.jsonl"));
    assertThat(rows).hasSize(4);
    ObjectMapper json = new ObjectMapper();
    JsonNode first = json.readTree(rows.get(0));
    // a fresh model over 264 ids starts near ln(264) = 5.58
    assertThat(first.get("loss").asDouble()).isBetween(4.5, 6.5);
  }
}
