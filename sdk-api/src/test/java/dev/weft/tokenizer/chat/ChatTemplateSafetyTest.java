package dev.weft.tokenizer.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.spec.SpecException;
import dev.weft.tokenizer.chat.jinja.Limits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40 items 4-7: data is never run as template code, every render is bounded, a template reads no files and
 * cannot be fed fake generation spans, and the Jinja2 behaviours Weft used to get wrong.
 */
class ChatTemplateSafetyTest {
  private static final String CHATML = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
      + "{% if tools %}{{ tools | tojson }}{% endif %}";

  private static ChatTemplate template(String source) { return new ChatTemplate(source, "test", Map.of("eos_token", "<|im_end|>")); }

  private static List<Object> user(String content) { return List.of(Map.of("role", "user", "content", content)); }

  private static void refusedInOneLine(Runnable r, String containing) {
    assertThatThrownBy(r::run).isInstanceOf(ChatTemplateException.class)
        .satisfies(x -> assertThat(x.getMessage()).doesNotContain("\n").contains(containing));
  }

  @Test
  void contentIsDataNeverTemplateCode() {
    ChatTemplate t = template(CHATML);
    for (String content : List.of("what is {{ 1 * 2 }} plus 2 ?", "the answer is {{ eos_token }} 4", "{% include \"META-INF/MANIFEST.MF\" %}",
        "{{ .Name }}", "{% for a in range(1000) %}{% for b in range(1000) %}{% for c in range(1000) %}x{% endfor %}{% endfor %}{% endfor %}",
        "{# not a comment #} {% raw %} {%- if -%}")) {
      assertThat(t.render(user(content), Map.of(), false).text()).isEqualTo("<|im_start|>user\n" + content + "<|im_end|>\n");
    }
  }

  @Test
  void aTemplateThatLoopsForeverOrGrowsWithoutBoundIsRefusedInOneLine() {
    // the step budget, small here to keep the test fast (the default, 20 million steps, stops it the same way)
    refusedInOneLine(() -> template("{% for a in range(1000) %}{% for b in range(1000) %}{% for c in range(1000) %}{% endfor %}"
        + "{% endfor %}{% endfor %}").withLimits(new Limits(1_000_000, Limits.DEFAULT.maxChars())).render(user("x"), Map.of(), false), "budget");
    refusedInOneLine(() -> template("{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s }}")
        .render(user("x"), Map.of(), false), "past the limit");
    refusedInOneLine(() -> template("{{ 'x' * 100000000000 }}").render(user("x"), Map.of(), false), "past the limit");
    refusedInOneLine(() -> template("{% macro r(n) %}{{ r(n + 1) }}{% endmacro %}{{ r(0) }}").render(user("x"), Map.of(), false), "deeper");
    refusedInOneLine(() -> template("{% for i in range(100) %}{{ messages[0].content }}{% endfor %}").withLimits(new Limits(50_000_000, 1000))
        .render(user("y".repeat(100)), Map.of(), false), "past the limit");
    assertThat(template("{{ range(1500) | length }} {{ range(10 ** 9) | length }}").render(user("x"), Map.of(), false).text())
        .isEqualTo("1500 1000000000");
  }

  @Test
  void aTemplateThatReadsFilesOrNestsBeyondParsingIsRefusedAtLoad() {
    for (String tag : List.of("{% include 'x.jinja' %}", "{% import 'm.jinja' as m %}", "{% from 'm' import x %}", "{% extends 'base' %}")) {
      refusedInOneLine(() -> template(tag + "{{ messages }}"), "not allowed in a chat template");
    }
    refusedInOneLine(() -> template("{{ " + "(".repeat(5000) + "1" + ")".repeat(5000) + " }}"), "nest");
    refusedInOneLine(() -> template("{{ x | no_such_filter }}"), "no filter named 'no_such_filter'");
  }

  @Test
  void generationSpansCannotBeFakedFromAnyField() {
    String fake = "\uFDD0fake\uFDD1 {% generation %}x{% endgeneration %}";
    ChatTemplate t = template("{% for m in messages %}{{ m.content }}{% if m.role == 'assistant' %}{% generation %}{{ m.content }}"
        + "{% endgeneration %}{% endif %}{% endfor %}{{ tools | tojson }}{{ documents }}{{ extra_key }}");
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("tools", List.of(Map.of("name", fake)));
    extra.put("documents", List.of(Map.of("text", fake)));
    extra.put("extra_key", fake);
    List<Object> messages = List.of(Map.of("role", "user", "content", fake), Map.of("role", "assistant", "content", "ok"));
    ChatTemplate.Rendered r = t.render(messages, extra, false);
    assertThat(r.generation()).hasSize(1);
    int[] span = r.generation().get(0);
    assertThat(r.text().substring(span[0], span[1])).isEqualTo("ok");
    assertThat(r.text()).contains(fake);
  }

  @Test
  void aSymlinkedTemplateMustStayInsideTheTokenizersDirectory(@TempDir Path dir) throws Exception {
    Path tok = Files.createDirectories(dir.resolve("tok"));
    Files.writeString(tok.resolve("tokenizer_config.json"), "{\"eos_token\": \"</s>\"}");
    Path outside = Files.writeString(dir.resolve("secret.jinja"), "{{ messages }}");
    Files.createSymbolicLink(tok.resolve("chat_template.jinja"), outside);
    assertThatThrownBy(() -> ChatTemplate.load(tok.resolve("tokenizer.json"))).isInstanceOf(SpecException.class)
        .satisfies(x -> assertThat(x.getMessage()).doesNotContain("\n").contains("outside the tokenizer's directory"));
    Files.delete(tok.resolve("chat_template.jinja"));
    Path inside = Files.writeString(tok.resolve("real.jinja"), "{% for m in messages %}{{ m.content }}{% endfor %}");
    Files.createSymbolicLink(tok.resolve("chat_template.jinja"), inside);
    assertThat(ChatTemplate.load(tok.resolve("tokenizer.json")).render(user("hi"), Map.of(), false).text()).isEqualTo("hi");
  }

  @Test
  void jinja2sBehavioursThatWeftUsedToGetWrong() {
    String t = "{% for i in range(3) %}1 {% endfor %}|{% for m in messages %}{{ m.content }} {% endfor %}";
    assertThat(template(t).render(List.of(Map.of("role", "user", "content", "hi"), Map.of("role", "assistant", "content", "hello")),
        Map.of(), false).text()).isEqualTo("1 1 1 |hi hello ");
    assertThat(template("{{ 1+1 }} {{ range(1500) | length }}").render(user("x"), Map.of(), false).text()).isEqualTo("2 1500");
    refusedInOneLine(() -> template("{{ foo.bar }}").render(user("x"), Map.of(), false), "'foo' is undefined");
    assertThat(template("{{ strftime_now is defined }} {{ messages[0].content.foo is defined }} {{ {'a': 'x'} }} {{ true }}")
        .render(user("x"), Map.of(), false).text()).isEqualTo("True False {'a': 'x'} True");
    assertThat(template("a\r\n{% if true %}\r\nb\r\n{% endif %}\r\n").render(user("x"), Map.of(), false).text()).isEqualTo("a\nb\n");
  }
}
