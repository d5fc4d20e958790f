package dev.weft.tokenizer.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.testing.PythonRef;
import dev.weft.tokenizer.HfTokenizer;
import dev.weft.util.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chat templates rendered by Weft against transformers' {@code apply_chat_template}: 50 conversations through a
 * ChatML (Qwen 2.5 style) and a Llama 3 style template give the same ids, and a template with
 * {@code {% generation %}} blocks the same assistant mask. The reference is made by chat_reference.py.
 */
class ChatTemplateTest {
  @TempDir static Path ref;
  static JsonNode expected;
  static List<Map<String, Object>> rows;

  @BeforeAll
  static void reference() throws Exception {
    PythonRef.require("transformers", "tokenizers", "pyarrow");
    expected = ChatReference.make(ref);
    rows = ChatReference.rows(ref.resolve("chat.jsonl"));
  }

  private static List<Object> messages(Map<String, Object> row) {
    if (row.get("messages") instanceof List<?> l) return new ArrayList<>(l);
    return List.of(Map.of("role", "user", "content", row.get("prompt")), Map.of("role", "assistant", "content", row.get("completion")));
  }

  private static ChatEncoder encoder(String name, ChatEncoder.TrainOn on) {
    Path tok = ref.resolve(name).resolve("tokenizer.json");
    return new ChatEncoder(HfTokenizer.open(tok), ChatTemplate.load(tok), on);
  }

  private static void sameIds(String name) {
    ChatEncoder e = encoder(name, ChatEncoder.TrainOn.ALL);
    JsonNode ids = expected.path(name).path("ids");
    assertThat(rows).hasSize(50);
    for (int i = 0; i < rows.size(); i++) {
      assertThat(e.encode(messages(rows.get(i)), Map.of()).ids()).as("%s conversation %d", name, i)
          .containsExactly(ChatReference.ints(ids.get(i)));
    }
  }

  @Test
  void chatmlIdsAreTransformers() { sameIds("chatml"); }

  @Test
  void llama3IdsAreTransformers() { sameIds("llama3"); }

  @Test
  void generationBlocksGiveTransformersAssistantMask() {
    ChatEncoder e = encoder("generation", ChatEncoder.TrainOn.ASSISTANT);
    JsonNode gen = expected.path("generation");
    int flagged = 0;
    for (int i = 0; i < rows.size(); i++) {
      ChatEncoder.Encoded enc = e.encode(messages(rows.get(i)), Map.of());
      assertThat(enc.ids()).as("ids of conversation %d", i).containsExactly(ChatReference.ints(gen.path("ids").get(i)));
      int[] mask = ChatReference.ints(gen.path("masks").get(i));
      for (int t = 0; t < mask.length; t++) {
        assertThat(enc.targets()[t]).as("conversation %d token %d", i, t).isEqualTo(mask[t] == 1);
        if (mask[t] == 1) flagged++;
      }
    }
    assertThat(flagged).isPositive();
  }

  @Test
  void withoutGenerationBlocksEachAssistantContentThroughItsTurnEndIsTheTarget() throws Exception {
    Path tok = ref.resolve("chatml").resolve("tokenizer.json");
    HfTokenizer t = HfTokenizer.open(tok);
    ChatEncoder e = new ChatEncoder(t, ChatTemplate.load(tok), ChatEncoder.TrainOn.ASSISTANT);
    for (Map<String, Object> row : rows) {
      List<Object> msgs = messages(row);
      ChatEncoder.Encoded enc = e.encode(msgs, Map.of());
      List<String> runs = new ArrayList<>(); // the decoded runs of target tokens (special tokens dropped)
      for (int s = 0; s < enc.ids().length; s++) {
        if (!enc.targets()[s] || (s > 0 && enc.targets()[s - 1])) continue;
        int end = s;
        while (end < enc.ids().length && enc.targets()[end]) end++;
        assertThat(enc.ids()[end - 1]).as("a run ends with <|im_end|>").isEqualTo(2);
        runs.add(t.decode(java.util.Arrays.copyOfRange(enc.ids(), s, end)));
      }
      List<String> expect = msgs.stream().map(m -> (Map<?, ?>) m).filter(m -> "assistant".equals(m.get("role")))
          .map(m -> m.get("content") + "").toList();
      assertThat(runs).hasSameSizeAs(expect);
      assertThat(runs).containsExactlyElementsOf(expect);
    }
  }

  @Test
  void aTemplateUsingAnUnsupportedConstructIsRefusedInOneLineNamingIt() throws Exception {
    Path d = Files.createDirectories(ref.resolve("unsupported"));
    Files.copy(ref.resolve("chatml/tokenizer.json"), d.resolve("tokenizer.json"));
    Files.writeString(d.resolve("tokenizer_config.json"),
        "{\"chat_template\": \"{% for m in messages %}{% trans %}{{ m.content }}{% endtrans %}{% endfor %}\"}");
    assertThatThrownBy(() -> ChatTemplate.load(d.resolve("tokenizer.json"))).isInstanceOf(ChatTemplateException.class)
        .satisfies(x -> assertThat(x.getMessage()).doesNotContain("\n").contains("trans"));
  }

  @Test
  void raiseExceptionRefusesTheConversationWithTheTemplatesMessage() throws Exception {
    ChatTemplate t = new ChatTemplate("{% for m in messages %}{% if m.role == 'tool' %}{{ raise_exception('no tools here') }}"
        + "{% endif %}{{ m.content }}{% endfor %}", "test", Map.of());
    assertThat(t.render(List.of(Map.of("role", "user", "content", "hi")), Map.of(), false).text()).isEqualTo("hi");
    assertThatThrownBy(() -> t.render(List.of(Map.of("role", "tool", "content", "x")), Map.of(), false))
        .isInstanceOf(ChatTemplateException.class).hasMessageContaining("no tools here")
        .satisfies(x -> assertThat(((ChatTemplateException) x).conversation()).isTrue());
  }
}
