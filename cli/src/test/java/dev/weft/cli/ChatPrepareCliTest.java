package dev.weft.cli;

import dev.weft.testing.WeftCli;
import dev.weft.testing.WeftCli.Output;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.data.Batches;
import dev.weft.data.ShardIndex;
import dev.weft.data.Splits;
import dev.weft.data.TokenArray;
import dev.weft.data.Windows;
import dev.weft.testing.PythonRef;
import dev.weft.tokenizer.chat.ChatReference;
import dev.weft.util.Tensors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weft data prepare --format chat}: 50 conversations (JSONL and the same as Parquet written by pyarrow)
 * through a ChatML and a Llama 3 template give transformers' {@code apply_chat_template} ids; a template with
 * {@code {% generation %}} blocks gives its assistant mask as the shards' target flags, and batches of those shards
 * ignore (-100) exactly the targets whose token is not flagged.
 */
class ChatPrepareCliTest {
  @TempDir static Path ref;
  @TempDir Path dir;
  static JsonNode expected;

  @BeforeAll
  static void reference() throws Exception {
    PythonRef.require("transformers", "tokenizers", "pyarrow");
    expected = ChatReference.make(ref);
  }


  private Path prepare(String template, String input, String... more) {
    Path out = dir.resolve(template + "-" + input.replace('.', '-'));
    List<String> args = new ArrayList<>(List.of("data", "prepare", "--format", "chat", "--tokenizer",
        ref.resolve(template).toString(), "--input", ref.resolve(input).toString(), "--out", out.toString(), "--shard-tokens", "700"));
    args.addAll(List.of(more));
    Output r = WeftCli.capture(args.toArray(String[]::new));
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("50 documents");
    return out;
  }

  private static int[] all(TokenArray a) { return ChatReference.all(a); }

  private static int[] concat(JsonNode lists) { return ChatReference.concat(lists); }

  @Test
  void chatmlAndLlama3ShardsHoldTransformersIdsConversationAfterConversation() {
    for (String t : List.of("chatml", "llama3")) {
      Path out = prepare(t, "chat.jsonl", "--train-on", "all");
      ShardIndex ix = ShardIndex.read(out);
      assertThat(ix.documents()).isEqualTo(50);
      assertThat(ix.shards()).hasSizeGreaterThan(1);
      assertThat(all(ix.open(out))).as(t).containsExactly(concat(expected.path(t).path("ids")));
      assertThat(all(ix.openFlags(out))).as("--train-on all flags every token").containsOnly(1);
    }
  }

  @Test
  void generationBlocksBecomeTheTargetFlagsAndBatchesIgnoreTheRest() {
    Path out = prepare("generation", "chat.jsonl");
    ShardIndex ix = ShardIndex.read(out);
    int[] ids = all(ix.open(out)), flags = all(ix.openFlags(out));
    assertThat(ids).containsExactly(concat(expected.path("generation").path("ids")));
    assertThat(flags).containsExactly(concat(expected.path("generation").path("masks")));

    int seqLen = 16;
    Splits s = Windows.split(ix.open(out), ix.openFlags(out), "chat", ix.vocabSize(), seqLen, 0.5, 1);
    long first = s.train().distinctSamples(); // validation windows follow the training ones, in order
    int batch = 8;
    Batches.Batch b = Batches.make(s.validation(), 0, batch, seqLen);
    long[] tg = Tensors.toLongs(b.targets());
    int ignored = 0;
    for (int k = 0; k < batch; k++) {
      int start = (int) ((first + k) * seqLen);
      for (int t = 0; t < seqLen; t++) {
        long want = flags[start + t + 1] == 1 ? ids[start + t + 1] : Batches.IGNORE;
        assertThat(tg[k * seqLen + t]).as("window %d target %d", first + k, t).isEqualTo(want);
        if (want == Batches.IGNORE) ignored++;
      }
    }
    assertThat(ignored).isBetween(1, batch * seqLen - 1);
  }

  @Test
  void theSameConversationsAsJsonlAndAsParquetPrepareToIdenticalShards() throws Exception {
    for (String t : List.of("chatml", "generation")) {
      Path a = prepare(t, "chat.jsonl"), b = prepare(t, "chat.parquet");
      ShardIndex ia = ShardIndex.read(a), ib = ShardIndex.read(b);
      assertThat(ib).isEqualTo(ia);
      for (ShardIndex.Shard s : ia.shards()) {
        assertThat(Files.readAllBytes(b.resolve(s.file()))).isEqualTo(Files.readAllBytes(a.resolve(s.file())));
        assertThat(Files.readAllBytes(b.resolve(s.flags()))).isEqualTo(Files.readAllBytes(a.resolve(s.flags())));
        assertThat(Files.readAllBytes(b.resolve(s.documents()))).isEqualTo(Files.readAllBytes(a.resolve(s.documents())));
      }
    }
  }

  @Test
  void textRowsReadFromParquetAsFromJsonl() throws Exception {
    List<Path> outs = new ArrayList<>();
    for (String in : List.of("text.jsonl", "text.parquet")) {
      Path out = dir.resolve("text-" + in.replace('.', '-'));
      Output r = WeftCli.capture("data", "prepare", "--tokenizer", ref.resolve("chatml").toString(), "--input", ref.resolve(in).toString(),
          "--out", out.toString());
      assertThat(r.code()).as(r.err()).isZero();
      outs.add(out);
    }
    ShardIndex a = ShardIndex.read(outs.get(0));
    assertThat(a.documents()).isEqualTo(20);
    assertThat(a.flagged()).isFalse();
    assertThat(all(ShardIndex.read(outs.get(1)).open(outs.get(1)))).containsExactly(all(a.open(outs.get(0))));
  }

  @Test
  void aTemplateWeftCannotRenderIsRefusedInOneLineNamingTheConstruct() throws Exception {
    Path tok = Files.createDirectories(dir.resolve("tok"));
    Files.copy(ref.resolve("chatml/tokenizer.json"), tok.resolve("tokenizer.json"));
    Files.writeString(tok.resolve("tokenizer_config.json"),
        "{\"chat_template\": \"{% for m in messages %}{% trans %}{{ m.content }}{% endtrans %}{% endfor %}\"}");
    Output r = WeftCli.capture("data", "prepare", "--format", "chat", "--tokenizer", tok.toString(), "--input", ref.resolve("chat.jsonl").toString(),
        "--out", dir.resolve("x").toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip()).doesNotContain("\n").startsWith("weft: --tokenizer:").contains("unknown tag 'trans'");
    assertThat(dir.resolve("x").resolve(ShardIndex.FILE)).doesNotExist();
  }

  @Test
  void rowsWithoutMessagesAreRefusedNamingTheField() throws Exception {
    Path in = Files.writeString(dir.resolve("bad.jsonl"), "{\"conversation\": [{\"role\": \"user\", \"content\": \"hi\"}, {\"role\": \"assistant\", \"content\": \"ok\"}]}\n");
    Output r = WeftCli.capture("data", "prepare", "--format", "chat", "--tokenizer", ref.resolve("chatml").toString(), "--input", in.toString(),
        "--out", dir.resolve("y").toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--field").contains("line 1").contains("'messages'");
    Output ok = WeftCli.capture("data", "prepare", "--format", "chat", "--field", "conversation", "--tokenizer", ref.resolve("chatml").toString(),
        "--input", in.toString(), "--out", dir.resolve("z").toString());
    assertThat(ok.code()).as(ok.err()).isZero();
  }
}
