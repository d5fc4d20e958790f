package dev.weft.tokenizer.chat;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.testing.PythonRef;
import dev.weft.tokenizer.HfTokenizer;
import dev.weft.util.Json;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chat corpus (ChatTemplateCorpusTest's published templates × conversations) through real tokenizers that know
 * each template's special tokens (chat_corpus_reference.py trains one with {@code tokenizers}): Weft's token ids equal
 * transformers' {@code apply_chat_template(..., tokenize=True)} for every conversation it renders, and Weft refuses in
 * one line every one it raises on; Weft's assistant targets ({@link ChatEncoder}) equal transformers'
 * {@code {% generation %}} mask where the template has blocks, else the independent prefix-diff reference (every
 * assistant token, tool calls and end of turn included; nothing else), for every turn and for the last turn only.
 */
class ChatCorpusIdsTest {
  @TempDir Path dir;

  @Test
  @SuppressWarnings("unchecked")
  void everyConversationHasTransformersIdsAndThePrefixDiffTargets() throws Exception {
    PythonRef.require("transformers", "tokenizers");
    List<Map<String, Object>> conversations = Json.PLAIN.readValue(ChatTemplateCorpusTest.resource("conversations.json"), List.class);
    Map<String, Object> templates = new LinkedHashMap<>();
    for (String t : ChatTemplateCorpusTest.TEMPLATES) templates.put(t, ChatTemplateCorpusTest.resource("templates/" + t + ".jinja"));
    List<Map<String, Object>> cases = new ArrayList<>();
    for (Map<String, Object> c : conversations) {
      Map<String, Object> v = ChatTemplateCorpusTest.vars(c);
      Map<String, Object> extra = extra(v);
      extra.remove("tools");
      Map<String, Object> one = new LinkedHashMap<>(Map.of("messages", v.get("messages"), "add_generation_prompt",
          v.get("add_generation_prompt"), "extra", extra));
      one.put("tools", v.get("tools")); // null as transformers' default
      cases.add(one);
    }
    Json.PLAIN.writeValue(dir.resolve("cases.json").toFile(), Map.of("templates", templates, "conversations", cases));
    JsonNode ref = ChatReference.make(dir, "chat_corpus_reference.py");

    List<String> wrong = new ArrayList<>();
    int[] ids = new int[2], targets = new int[2]; // matched, refused as transformers refuses
    Map<String, String> perTemplate = new LinkedHashMap<>();
    for (String t : ChatTemplateCorpusTest.TEMPLATES) {
      int[] before = {ids[1], targets[1]};
      Path file = dir.resolve(t).resolve("tokenizer.json");
      try (HfTokenizer tokenizer = HfTokenizer.open(file)) {
        ChatTemplate template = ChatTemplate.load(file);
        for (int i = 0; i < conversations.size(); i++) {
          String name = t + " conversation " + i;
          Map<String, Object> v = ChatTemplateCorpusTest.vars(conversations.get(i));
          List<?> messages = (List<?>) v.get("messages");
          Map<String, Object> extra = extra(v);
          JsonNode r = ref.get(t).get(i);
          compare(name + " ids", r.get("ids"), wrong, ids, () -> new ChatEncoder.Encoded(
              tokenizer.encode(template.render(messages, extra, (Boolean) v.get("add_generation_prompt")).text()), null));
          for (ChatEncoder.TrainOn on : List.of(ChatEncoder.TrainOn.ASSISTANT, ChatEncoder.TrainOn.LAST)) {
            JsonNode expected = r.get(on == ChatEncoder.TrainOn.LAST ? "last" : "assistant");
            if (expected.isNull()) continue;
            compare(name + " targets (" + on + ")", expected, wrong, targets,
                () -> new ChatEncoder(tokenizer, template, on).encode(messages, extra));
          }
        }
      }
      perTemplate.put(t, (ids[1] - before[0]) + "/" + (targets[1] - before[1]));
    }
    int cases2 = ChatTemplateCorpusTest.TEMPLATES.size() * conversations.size();
    System.out.printf("chat corpus: ids %d matched + %d refused as transformers refuses, of %d; targets %d matched + %d refused%n",
        ids[0], ids[1], cases2, targets[0], targets[1]);
    System.out.println("refused per template (ids/targets): " + perTemplate);
    assertThat(wrong).as(String.join("\n", wrong)).isEmpty();
    assertThat(ids[0]).as("conversations whose ids match").isGreaterThan(cases2 / 2);
    assertThat(targets[0]).as("conversations whose targets match").isGreaterThan(cases2 / 2);
  }

  /** The template variables beyond messages and the generation prompt, less the specials the tokenizer's config sets. */
  private static Map<String, Object> extra(Map<String, Object> v) {
    Map<String, Object> extra = new LinkedHashMap<>(v);
    for (String k : List.of("messages", "add_generation_prompt", "bos_token", "eos_token")) extra.remove(k);
    return extra;
  }

  private interface Encoding { ChatEncoder.Encoded run(); }

  /** Weft's encoding against transformers' answer ({ids, flags?} or {error}); counts[0] matched, counts[1] refused. */
  private static void compare(String name, JsonNode expected, List<String> wrong, int[] counts, Encoding weft) {
    ChatEncoder.Encoded got;
    try {
      got = weft.run();
    } catch (ChatTemplateException e) {
      if (e.getMessage().contains("\n")) wrong.add(name + ": a refusal of more than one line");
      if (expected.has("error")) counts[1]++;
      else wrong.add(name + ": Weft refused (" + e.getMessage() + "), transformers did not");
      return;
    }
    if (expected.has("error")) {
      wrong.add(name + ": transformers raised (" + expected.get("error").asText() + "), Weft did not");
      return;
    }
    int[] want = ChatReference.ints(expected.get("ids"));
    if (!Arrays.equals(want, got.ids())) {
      wrong.add(name + ": ids " + Arrays.toString(got.ids()) + "\n   transformers' " + Arrays.toString(want));
      return;
    }
    if (expected.has("flags")) {
      int[] flags = ChatReference.ints(expected.get("flags"));
      int[] mine = new int[got.targets().length];
      for (int k = 0; k < mine.length; k++) mine[k] = got.targets()[k] ? 1 : 0;
      if (!Arrays.equals(flags, mine)) {
        wrong.add(name + ": targets " + Arrays.toString(mine) + "\n   reference's " + Arrays.toString(flags));
        return;
      }
    }
    counts[0]++;
  }
}
