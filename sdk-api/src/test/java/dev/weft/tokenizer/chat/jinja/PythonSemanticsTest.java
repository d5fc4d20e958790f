package dev.weft.tokenizer.chat.jinja;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Python's str methods, json.dumps, float repr and strftime as templates see them (expected values are CPython 3's). */
class PythonSemanticsTest {
  private static String render(String template, Map<String, Object> vars) {
    return Template.compile(template).render(vars, Limits.DEFAULT).text();
  }

  private static String dumps(Object value, Map<String, Object> kwargs) {
    return PyJson.dumps(new Budget(Limits.DEFAULT), Py.adopt(value), List.of(), kwargs);
  }

  @Test
  void stringMethodsBehaveAsPythons() {
    Map<String, Object> v = Map.of("s", "  a  b\tc \n", "t", "x</think>y</think>z", "p", "<tool_response>r");
    assertThat(render("{{ s.split() | join('|') }}", v)).isEqualTo("a|b|c");
    assertThat(render("{{ s.split(None, 1) | join('|') }}", v)).isEqualTo("a|b\tc \n");
    assertThat(render("{{ t.split('</think>') | join('|') }}", v)).isEqualTo("x|y|z");
    assertThat(render("{{ t.split('</think>', 1)[1] }}", v)).isEqualTo("y</think>z");
    assertThat(render("{{ t.rsplit('</think>', 1)[0] }}", v)).isEqualTo("x</think>y");
    assertThat(render("[{{ s.strip() }}][{{ s.lstrip() }}][{{ s.rstrip() }}]", v)).isEqualTo("[a  b\tc][a  b\tc \n][  a  b\tc]");
    assertThat(render("{{ 'xxhixx'.strip('x') }}{{ '\\n\\nk'.lstrip('\\n') }}", v)).isEqualTo("hik");
    assertThat(render("{{ p.startswith('<tool_response>') }} {{ p.endswith(('q', 'r')) }} {{ p.startswith('x') }}", v))
        .isEqualTo("True True False");
    assertThat(render("{{ 'ab'.upper() }}{{ 'AB'.lower() }}{{ 'hello wORLD'.title() }}{{ 'aXa'.replace('a', 'b', 1) }}", v))
        .isEqualTo("ABabHello WorldbXa");
    assertThat(render("{{ ', '.join(['a', 'b']) }}", v)).isEqualTo("a, b");
  }

  @Test
  void tojsonIsPythonsJsonDumps() {
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put("x", 1.5);
    inner.put("y", null);
    inner.put("s", "é\"\n");
    Map<String, Object> tool = new LinkedHashMap<>();
    tool.put("name", "f");
    tool.put("args", inner);
    tool.put("list", List.of(1L, true, List.of()));
    assertThat(dumps(tool, Map.of())).isEqualTo("{\"name\": \"f\", \"args\": {\"x\": 1.5, \"y\": null, \"s\": \"é\\\"\\n\"}, \"list\": [1, true, []]}");
    assertThat(dumps(Map.of("a", List.of(1L, 2L)), Map.of("indent", 2L))).isEqualTo("{\n  \"a\": [\n    1,\n    2\n  ]\n}");
    assertThat(dumps(List.of(-0.0, 1e20, "é"), Map.of("ensure_ascii", true))).isEqualTo("[-0.0, 1e+20, \"\\u00e9\"]");
    assertThat(render("{{ t | tojson(indent=2) }}|{{ t | tojson }}", Map.of("t", Map.of("k", 2L))))
        .isEqualTo("{\n  \"k\": 2\n}|{\"k\": 2}");
  }

  @Test
  void floatsAndDatesAreWrittenAsPythonWritesThem() {
    assertThat(Py.floatRepr(1.0)).isEqualTo("1.0");
    assertThat(Py.floatRepr(0.1)).isEqualTo("0.1");
    assertThat(Py.floatRepr(-0.0)).isEqualTo("-0.0");
    assertThat(Py.floatRepr(1e20)).isEqualTo("1e+20");
    assertThat(Py.floatRepr(1e16)).isEqualTo("1e+16");
    assertThat(Py.floatRepr(1e15)).isEqualTo("1000000000000000.0");
    assertThat(Py.floatRepr(1.5e-7)).isEqualTo("1.5e-07");
    assertThat(Py.floatRepr(0.00001)).isEqualTo("1e-05");
    assertThat(Py.floatRepr(0.0001)).isEqualTo("0.0001");
    assertThat(Py.floatRepr(123456.789)).isEqualTo("123456.789");
    assertThat(Strftime.format("%d %b %Y, %A %H:%M %-d", LocalDateTime.of(2024, 7, 3, 9, 5))).isEqualTo("03 Jul 2024, Wednesday 09:05 3");
  }

  @Test
  void whitespaceControlStripsTheDataNextToAMarkedTag() {
    String t = "{%- for m in messages %}\n    {{- m }}\n    {%- if loop.last %}\n        {{- '!' }}\n    {%- endif %}\n{%- endfor %}\n";
    assertThat(render(t, Map.of("messages", List.of("a", "b")))).isEqualTo("ab!");
  }
}
