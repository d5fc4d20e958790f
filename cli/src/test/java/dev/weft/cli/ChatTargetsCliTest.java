package dev.weft.cli;

import static dev.weft.testing.WeftCli.assertOneLine;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.data.ShardIndex;
import dev.weft.data.TokenArray;
import dev.weft.testing.PythonRef;
import dev.weft.testing.WeftCli;
import dev.weft.testing.WeftCli.Output;
import dev.weft.tokenizer.chat.ChatReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40, items 1-3: chat targets of templates without {@code {% generation %}} blocks (Qwen 2.5's published
 * template with tools, and a Llama 3 style one) equal an independent prefix-diff reference built on transformers'
 * {@code apply_chat_template} (prefix_diff_reference.py): every assistant token, tool calls and end-of-turn
 * included, nothing else; a template that rewrites earlier turns is refused; the length policy says what it costs;
 * a dataset with nothing to learn is refused.
 */
class ChatTargetsCliTest {
  @TempDir static Path ref;
  @TempDir Path dir;
  static JsonNode expected;

  @BeforeAll
  static void reference() throws Exception {
    PythonRef.require("transformers", "tokenizers");
    expected = ChatReference.make(ref, "prefix_diff_reference.py");
  }

  private Output prepare(String template, Path input, Path out, String... more) {
    List<String> args = new ArrayList<>(List.of("data", "prepare", "--format", "chat", "--tokenizer",
        ref.resolve(template).toString(), "--input", input.toString(), "--out", out.toString()));
    args.addAll(List.of(more));
    return WeftCli.capture(args.toArray(String[]::new));
  }

  private static int[] all(TokenArray a) { return ChatReference.all(a); }

  private static int[] concat(JsonNode lists) { return ChatReference.concat(lists); }

  private static long ones(JsonNode lists) { return java.util.Arrays.stream(concat(lists)).filter(v -> v == 1).count(); }

  @Test
  void withoutGenerationBlocksTheTargetsAreThePrefixDiffOfTransformersRenderings() {
    for (String t : List.of("qwen25", "llama3")) {
      for (String on : List.of("assistant", "last")) {
        Path out = dir.resolve(t + "-" + on);
        Output r = prepare(t, ref.resolve(t + ".jsonl"), out, "--train-on", on);
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode want = expected.path(t);
        long targets = ones(want.path(on.equals("last") ? "last" : "assistant"));
        assertThat(r.out()).contains("found by diffing").contains(String.format("%,d target tokens", targets));
        ShardIndex ix = ShardIndex.read(out);
        assertThat(ix.documents()).isEqualTo(60);
        assertThat(all(ix.open(out))).as(t).containsExactly(concat(want.path("ids")));
        assertThat(all(ix.openFlags(out))).as(t + " " + on).containsExactly(concat(want.path(on.equals("last") ? "last" : "assistant")));
      }
    }
    // what the reference found holds what the issue saw untrained: tool calls, and the end of a turn without content
    String calls = expected.path("qwen25").path("targets").get(1).get(0).asText();
    assertThat(calls).startsWith("<tool_call>").contains("\"name\": \"add\"").endsWith("</tool_call><|im_end|>");
  }

  @Test
  void aTemplateThatRewritesEarlierTurnsIsRefusedNamingTheRow() throws Exception {
    Path in = Files.writeString(dir.resolve("two.jsonl"), "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}, "
        + "{\"role\": \"assistant\", \"content\": \"a\"}]}\n{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}, "
        + "{\"role\": \"assistant\", \"content\": \"a\"}, {\"role\": \"user\", \"content\": \"more\"}, "
        + "{\"role\": \"assistant\", \"content\": \"b\"}]}\n");
    assertOneLine(WeftCli.run("data", "prepare", "--format", "chat", "--tokenizer", ref.resolve("rewriting").toString(), "--input",
        in.toString(), "--out", dir.resolve("x").toString()), 2, "--input", "line 2", "rewrites earlier turns", "{% generation %}", "--train-on all");
    assertThat(dir.resolve("x").resolve(ShardIndex.FILE)).doesNotExist();
    assertThat(prepare("rewriting", in, dir.resolve("y"), "--train-on", "all").code()).isZero();
  }

  @Test
  void aDatasetWithNothingToLearnIsRefused() throws Exception {
    Path in = Files.writeString(dir.resolve("hi.jsonl"), "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n");
    assertOneLine(WeftCli.run("data", "prepare", "--format", "chat", "--tokenizer", ref.resolve("qwen25").toString(), "--input",
        in.toString(), "--out", dir.resolve("x").toString()), 2, "--input", "no conversation has a token to learn", "--train-on all");
    assertThat(dir.resolve("x").resolve(ShardIndex.FILE)).doesNotExist();
    assertThat(prepare("qwen25", in, dir.resolve("y"), "--train-on", "all").code()).isZero();
  }

  @Test
  void theLengthPolicyKeepsTheFirstOrLastTokensOrDropsAndSaysWhatItCost() {
    int max = 60;
    JsonNode want = expected.path("qwen25");
    int[] ids = concat(want.path("ids"));
    for (String how : List.of("right", "left", "drop")) {
      List<Integer> keptIds = new ArrayList<>(), keptFlags = new ArrayList<>();
      long longer = 0, lost = 0;
      for (int c = 0; c < want.path("ids").size(); c++) {
        int[] d = ChatReference.ints(want.path("ids").get(c)), f = ChatReference.ints(want.path("assistant").get(c));
        int from = 0, to = d.length;
        if (d.length > max) {
          longer++;
          if (how.equals("drop")) to = 0;
          else if (how.equals("right")) to = max;
          else from = d.length - max;
        }
        for (int i = 0; i < d.length; i++) {
          if (i >= from && i < to) {
            keptIds.add(d[i]);
            keptFlags.add(f[i]);
          } else if (f[i] == 1) lost++;
        }
      }
      assertThat(longer).isBetween(1L, 59L);
      Path out = dir.resolve("len-" + how);
      Output r = prepare("qwen25", ref.resolve("qwen25.jsonl"), out, "--max-length", "" + max, "--truncation", how);
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(r.out()).contains(String.format("%,d conversations longer than %d tokens: %,d %s", longer, max, longer,
          how.equals("drop") ? "dropped" : "truncated (" + how + ")")).contains(String.format("%,d target tokens lost", lost));
      ShardIndex ix = ShardIndex.read(out);
      assertThat(all(ix.open(out))).containsExactly(keptIds.stream().mapToInt(Integer::intValue).toArray());
      assertThat(all(ix.openFlags(out))).containsExactly(keptFlags.stream().mapToInt(Integer::intValue).toArray());
      assertThat(ids.length).isGreaterThan(keptIds.size());
    }
  }

  @Test
  void theProgressLineCountsTokensAsItGoes() {
    Output r = prepare("qwen25", ref.resolve("qwen25.jsonl"), dir.resolve("p"));
    assertThat(r.code()).as(r.err()).isZero();
    List<String> bars = r.out().lines().filter(l -> l.startsWith("[")).toList();
    assertThat(bars).isNotEmpty();
    assertThat(bars.get(bars.size() - 1)).contains(String.format("%,d tokens", concat(expected.path("qwen25").path("ids")).length));
  }
}
