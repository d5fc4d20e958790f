package dev.weft.tokenizer.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.util.Json;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real published chat templates (test resources under templates/, sources in their README) rendering conversations
 * with tools, tool calls, tool results, system prompts, unicode and literal template syntax in the data: Weft's text
 * equals what transformers' Jinja2 renders for every conversation Jinja2 renders, its {@code {% generation %}} spans
 * the same, and Weft refuses, in one line, every conversation Jinja2 raises on.
 */
class ChatTemplateCorpusTest {
  static final List<String> TEMPLATES = List.of("qwen2.5-instruct", "granite-3.0-instruct", "mistral-instruct", "gemma-it",
      "llama-3.2-1B-Instruct", "phi-4-mini-instruct", "deepseek-v3.1", "mistral-small-3.1", "nemotron-nano-v2", "kimi-k2", "lfm2", "llama-3.2-instruct", "llama-3.1-generation",
      "deepseek-r1-distill-qwen", "glm-4.6", "chatml", "zephyr", "gemma-3", "llama-4", "hermes-3-tool-use",
      // written from the published originals: tool calling in other shapes (XML parameters, Python signatures,
      // [TOOL_CALLS] with ids, tool results as user turns), reasoning_content, documents, generation blocks
      "qwen3", "qwen3-coder", "mistral-v3-tools", "mistral-nemo-tekken", "granite-3.2-instruct", "command-r", "command-r-tools",
      "hermes-2-pro-tool-use", "smollm3", "falcon3", "glm-4-9b-chat", "glm-4-tools", "deepseek-v3", "deepseek-r1", "phi-3.5-mini",
      "phi-4", "gemma-2", "olmo-2", "llama-2-chat", "internlm2", "yi-chat", "gpt-oss", "qwen2-vl", "mistral-small-3.2");
  static final Map<String, Object> SPECIALS = Map.of("bos_token", "<|bos|>", "eos_token", "<|eos|>");

  @TempDir Path dir;

  private static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
    return m;
  }

  private static Map<String, Object> tool(String name, String description, Map<String, Object> properties, List<String> required) {
    return map("type", "function", "function", map("name", name, "description", description,
        "parameters", map("type", "object", "properties", properties, "required", required)));
  }

  private static final Map<String, Object> WEATHER = tool("get_weather", "Current weather for a city — \"quoted\" <b>tags</b>",
      map("city", map("type", "string", "description", "City name"), "unit", map("type", "string", "enum", List.of("celsius", "fahrenheit")),
          "days", map("type", "array", "items", map("type", "integer"))), List.of("city"));
  private static final Map<String, Object> SEARCH = tool("search", "Search the web; literal {{ q }} and {% raw %} here",
      map("q", map("type", "string"), "limit", map("type", "integer", "default", 10, "minimum", 1.5)), List.of("q"));

  static String resource(String path) throws Exception {
    try (InputStream in = ChatTemplateCorpusTest.class.getResourceAsStream("/dev/weft/tokenizer/chat/" + path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The variables transformers' render_jinja_template passes for one conversation. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> vars(Map<String, Object> conversation) {
    Map<String, Object> v = new LinkedHashMap<>(SPECIALS);
    Object tools = conversation.get("tools") instanceof List<?> given ? given : switch (String.valueOf(conversation.get("tools"))) {
      case "WEATHER" -> List.of(WEATHER);
      case "SEARCH" -> List.of(SEARCH);
      case "BOTH" -> List.of(WEATHER, SEARCH);
      default -> null;
    };
    v.put("tools", tools);
    v.put("documents", null);
    if (conversation.get("extra") instanceof Map<?, ?> extra) v.putAll((Map<String, Object>) extra);
    v.put("messages", conversation.get("messages"));
    v.put("add_generation_prompt", Boolean.TRUE.equals(conversation.get("add_generation_prompt")));
    return v;
  }

  @Test
  @SuppressWarnings("unchecked")
  void publishedTemplatesRenderEveryConversationAsTransformersDoes() throws Exception {
    List<Map<String, Object>> conversations = Json.PLAIN.readValue(resource("conversations.json"), List.class);
    List<JinjaReference.Case> cases = new ArrayList<>();
    for (String t : TEMPLATES) {
      String source = resource("templates/" + t + ".jinja");
      for (Map<String, Object> c : conversations) cases.add(new JinjaReference.Case(source, vars(c)));
    }
    List<JinjaReference.Answer> answers = JinjaReference.render(dir, cases);
    List<String> wrong = new ArrayList<>();
    int rendered = 0, refused = 0;
    for (int i = 0; i < cases.size(); i++) {
      String name = TEMPLATES.get(i / conversations.size()) + " conversation " + (i % conversations.size());
      Map<String, Object> v = cases.get(i).vars();
      Map<String, Object> extra = new LinkedHashMap<>(v);
      extra.remove("messages");
      extra.remove("add_generation_prompt");
      JinjaReference.Answer a = answers.get(i);
      ChatTemplate.Rendered r;
      try {
        r = new ChatTemplate(cases.get(i).template(), "corpus", Map.of())
            .render((List<?>) v.get("messages"), extra, (Boolean) v.get("add_generation_prompt"));
      } catch (ChatTemplateException e) {
        if (e.getMessage().contains("\n")) wrong.add(name + ": a refusal of more than one line");
        if (a.text() == null) refused++;
        else wrong.add(name + ": Weft refused (" + e.getMessage() + "), Jinja2 rendered it");
        continue;
      }
      if (a.text() == null) {
        wrong.add(name + ": Jinja2 raised (" + a.error() + "), Weft rendered it");
      } else if (!a.text().equals(r.text())) {
        wrong.add(name + ":\n  jinja2: " + a.text().replace("\n", "\\n") + "\n  weft:   " + r.text().replace("\n", "\\n"));
      } else {
        rendered++;
        if (a.spans() != null) {
          List<String> spans = r.generation().stream().map(s -> r.text().substring(s[0], s[1])).toList();
          if (!spans.equals(a.spans())) wrong.add(name + ": generation spans " + spans + ", Jinja2's " + a.spans());
        }
      }
    }
    assertThat(wrong).as(String.join("\n", wrong)).isEmpty();
    assertThat(rendered).as("conversations rendered").isGreaterThan(cases.size() / 2);
    assertThat(refused).as("conversations refused as Jinja2 refuses them").isPositive();
  }
}
