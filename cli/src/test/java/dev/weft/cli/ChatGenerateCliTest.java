package dev.weft.cli;

import static dev.weft.testing.WeftCli.assertOneLine;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.eval.ChatGeneration;
import dev.weft.eval.Generation;
import dev.weft.eval.ModelSource;
import dev.weft.models.CausalLm;
import dev.weft.models.hf.HfReference;
import dev.weft.testing.WeftCli;
import dev.weft.tokenizer.HfTokenizer;
import dev.weft.tokenizer.chat.ChatTemplate;
import dev.weft.train.PreferenceFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weft generate --chat} on a tiny random Qwen 2 directory with a word-level tokenizer and a ChatML-like template:
 * the prompt is the conversation rendered with the generation prompt (ids written out by hand here), generation stops
 * at the template's end-of-turn token, and the printed reply is the greedy continuation of those ids, decoded.
 */
class ChatGenerateCliTest {
  private static final int NEW = 12;
  @TempDir static Path dir;
  static Path hf;

  @BeforeAll
  static void model() throws Exception {
    hf = HfReference.writeFamily("qwen2", dir.resolve("hf"), 41, true);
    Path tok = PreferenceFixture.tokenizer(dir.resolve("tok"));
    for (String f : List.of("tokenizer.json", "tokenizer_config.json")) Files.copy(tok.resolve(f), hf.resolve(f));
  }

  private static long id(String word) { return PreferenceFixture.WORDS.indexOf(word) + 3; }

  @Test
  void theReplyIsTheGreedyContinuationOfTheRenderedConversationUpToTheEndOfTurn() {
    // <|im_start|>user what is 3 plus 4 ?<|im_end|> <|im_start|>assistant
    long[] prompt = {1, id("user"), id("what"), id("is"), id("3"), id("plus"), id("4"), id("?"), 0, 1, id("assistant")};
    HfTokenizer tok = HfTokenizer.open(hf.resolve("tokenizer.json"));
    ChatTemplate template = ChatTemplate.load(tok.file());
    List<Map<String, Object>> messages = List.of(Map.of("role", "user", "content", "what is 3 plus 4 ?"));
    assertThat(ChatGeneration.promptIds(tok, template, messages)).containsExactly(prompt);
    CausalLm lm = (CausalLm) ModelSource.open(hf, prompt.length + NEW).model();
    assertThat(ChatGeneration.stopTokens(lm, tok, template)).contains(0L); // <|im_end|>, the template's end of turn

    long[] ids = Generation.generate(lm, prompt, NEW, Generation.Sampling.GREEDY, new long[] {0});
    int end = ids[ids.length - 1] == 0 ? ids.length - 1 : ids.length;
    String expected = tok.decode(Arrays.stream(ids, 0, end).mapToInt(Math::toIntExact).toArray());

    WeftCli.Output o = WeftCli.capture("generate", hf.toString(), "--chat", "--prompt", "what is 3 plus 4 ?", "--max-new-tokens",
        String.valueOf(NEW));
    assertThat(o.code()).as(o.err()).isZero();
    assertThat(o.out().lines().toList()).containsExactly(expected.strip());
    ChatGeneration.Reply r = ChatGeneration.reply(lm, tok, template, messages, NEW, Generation.Sampling.GREEDY);
    assertThat(r.ids()).containsExactly(ids);
    assertThat(r.stopped()).isEqualTo(end < ids.length);
  }

  @Test
  void chatMistakesAreOneLine() {
    assertOneLine(WeftCli.run("generate", hf.toString(), "--chat", "--prompt-ids", "1,2", "--max-new-tokens", "2"), 2, "--prompt-ids");
    assertOneLine(WeftCli.run("generate", hf.toString(), "--system", "be brief", "--prompt", "what", "--max-new-tokens", "2"), 2,
        "--system", "--chat");
    assertOneLine(WeftCli.run("generate", hf.toString(), "--chat", "--tokenizer", "bytes", "--prompt", "what", "--max-new-tokens", "2"),
        2, "--tokenizer");
  }
}
