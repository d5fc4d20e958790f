package dev.weft.tokenizer.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.tokenizer.chat.jinja.Limits;
import dev.weft.tokenizer.chat.jinja.Template;
import dev.weft.tokenizer.chat.jinja.TemplateError;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Weft's Jinja engine against Jinja2 run as transformers runs it, on small templates that each pin one semantic
 * (whitespace control, Python printing, undefined, operators, filters, tests, methods, loops, macros): the same
 * text for every case Jinja2 renders, a one-line refusal for every case it raises on. One python process.
 */
class JinjaSemanticsTest {
  @TempDir Path dir;

  private static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
    return m;
  }

  private static final Map<String, Object> VARS = map(
      "messages", List.of(map("role", "system", "content", "sys"), map("role", "user", "content", "hi"),
          map("role", "assistant", "content", "hello", "tool_calls", List.of(map("type", "function",
              "function", map("name", "f", "arguments", map("x", 1, "y", List.of(1.5, -0.0, true)))))),
          map("role", "user", "content", "what is {{ 1 * 2 }} plus {% if true %}2{% endif %} ? {{ .Name }} {# c #}")),
      "d", map("b", 2, "a", "x", "n", null, "t", true),
      "s", "  Hello wORLD, they're 'here'\n",
      "n", 7, "f", 2.5, "l", List.of(3, 1, 2), "e", "", "u", "ünï ☃ 😀",
      "tools", List.of(map("type", "function", "function", map("name", "get", "description", "Get \"it\" <now>",
          "parameters", map("type", "object", "properties", map("q", map("type", "string")), "required", List.of("q"))))),
      "tree", List.of(map("name", "a", "children", List.of(map("name", "a1", "children", List.of(map("name", "a1x"))),
          map("name", "a2"))), map("name", "b", "children", List.of())),
      "big", 9007199254740993L, "text", "The quick brown fox jumps over the lazy dog; a well-known sentence\nsecond   line  here");

  private static final List<String> TEMPLATES = List.of(
      // whitespace: trim_blocks, lstrip_blocks, -, +, mid-line tags, comments, raw, CRLF, trailing newline
      "{% for i in range(3) %}1 {% endfor %}|{% for m in messages %}{{ m.content }} {% endfor %}",
      "a\n  {% if true %}\n    x\n  {% endif %}\nb\n",
      "a  {% if true %}x{% endif %}  b\n  {{ n }}  {% if n %}y{% endif %}",
      "{{ n }}  {% if n %}mid{% endif %}",
      "x\n  {#- c -#}  \n  y  {#+ c #}z\n  {# c #}\nw",
      "a \n {%- if true -%} \n b \n {%- endif %}\n c {{- n -}} d {%+ if true %}e{% endif %}",
      "{% raw %}{{ not parsed }} {% if %}{% endraw %}|{%- raw -%}  x  {%- endraw -%}  |",
      "line1\r\n{% if true %}\r\nline2\r\n{% endif %}\r\nline3\r\n",
      "{{ 'a\\nb' }}\n\n",
      // Python printing
      "{{ d }}|{{ l }}|{{ (1,) }}|{{ (1, 'a') }}|{{ none }}|{{ true }}|{{ [none, true, 1.0, 'it\\'s', \"q\\\"\"] }}",
      "{{ 1e16 }} {{ 0.00001 }} {{ 0.0001 }} {{ -0.0 }} {{ 1.5e-7 }} {{ 123456.789 }} {{ 2.5 * 2 }} {{ 10 / 4 }} {{ 1/3 }}",
      "{{ d.items() | list }}|{{ d.keys() | list }}|{{ d.values() | list }}",
      "{{ u }}|{{ [u] }}|{{ ['\\x01\\t\\u2028'] }}",
      // arithmetic and operators
      "{{ 1+1 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ 2 ** -1 }} {{ 'ab' * 3 }} {{ [1] * 2 }} {{ 1 + 2.5 }} {{ true + 1 }}",
      "{{ not 'z' in 'abc' }} {{ 'z' not in 'abc' }} {{ 'a' in 'abc' }} {{ 'b' in d }} {{ 3 in l }} {{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }}",
      "{{ 1 == 1.0 }} {{ [1, 2] == [1, 2] }} {{ (1,) == [1] }} {{ 'a' ~ 1 ~ none ~ true }} {{ 1 if false }}|{{ 'y' if n > 3 else 'n' }}",
      "{{ n and 'x' }} {{ e or 'dflt' }} {{ e and 'x' }} {{ - n }} {{ -n|abs }} {{ (n + 1) * 2 }}",
      "{{ 1 / 0 }}",
      "{{ 'a' + 1 }}",
      "{{ 'a' < 1 }}",
      // undefined
      "[{{ missing }}][{{ missing | default('dflt') }}][{{ e | default('dflt', true) }}][{{ missing is defined }}][{{ missing | length }}]",
      "{{ missing.attr }}",
      "{{ missing['k'] }}",
      "{{ missing + 1 }}",
      "[{{ s.foo }}][{{ s['foo'] }}][{{ d.zzz }}][{{ l[10] }}][{{ none.x }}][{{ 'abc'[1] }}][{{ 'abc'[-1] }}][{{ s.foo is defined }}]",
      "{{ d.zzz.yyy }}",
      "{% for x in missing %}x{% else %}empty{% endfor %}|{% if missing %}y{% else %}n{% endif %}|{{ missing == missing }}",
      // strings
      "[{{ s.strip() }}][{{ s.lstrip() }}][{{ s.rstrip() }}][{{ s.split() }}][{{ s.split(',') }}][{{ s.split(None, 1) }}][{{ s.rsplit(' ', 1) }}]",
      "{{ 'xxhixx'.strip('x') }} {{ s.upper() }} {{ s.lower() }} {{ s.title() }} {{ s | title }} {{ 'hELLO w' | capitalize }} {{ s.capitalize() }}",
      "{{ s.startswith('  H') }} {{ s.endswith(('x', '\\n')) }} {{ s.replace('l', 'L') }} {{ s.replace('l', 'L', 1) }} {{ s.find('o') }} {{ s.count('l') }}",
      "{{ ', '.join(['a', 'b']) }} {{ 'a-b-c'.split('-', 1) }} {{ 'a b'.partition(' ') }} {{ '{}+{}={x}'.format(1, 2, x=3) }} {{ 'ab'.center(6, '*') }}",
      "{{ '%s is %d' % ('x', 3) }} {{ 'x'.zfill(3) }} {{ '12'.isdigit() }} {{ 'a\\nb\\r\\nc'.splitlines() }} {{ s[2:7] }} {{ s[::-1] }} {{ l[::-1] }} {{ l[1:] }}",
      "{{ '{{x}}' }} {{ '{% if %}' }} {{ \"{{ messages }}\" ~ '}}' }}",
      // filters
      "{{ l | sort }} {{ l | sort(reverse=true) }} {{ l | max }} {{ l | min }} {{ l | sum }} {{ l | first }} {{ l | last }} {{ l | length }} {{ l | join(',') }} {{ l | reverse | list }}",
      "{{ d | dictsort }} {{ d | items | list }} {{ messages | map(attribute='role') | list }} {{ messages | selectattr('role', 'equalto', 'user') | map(attribute='content') | list }}",
      "{{ messages | rejectattr('role', 'in', ['system', 'user']) | list | length }} {{ [1, 0, 2] | select | list }} {{ [1, 2, 3] | select('odd') | list }} {{ ['a', 'A', 'b'] | unique | list }}",
      "{{ s | trim }} {{ s | trim | length }} {{ 'a\\nb\\n\\nc' | indent(2) }}|{{ 'a\\nb' | indent(2, true) }}|{{ 'a\\n\\nb' | indent(2, blank=true) }}",
      "{{ '3' | int + 1 }} {{ 'x' | int }} {{ '2.5' | float }} {{ 2.567 | round(2) }} {{ 2.5 | round }} {{ 3.5 | round }} {{ 2.4 | round(0, 'ceil') }} {{ 5 | string ~ 'x' }} {{ 'a<b' | e }} {{ 'x' | safe }}",
      "{{ tools | tojson }}|{{ tools[0] | tojson(indent=2) }}|{{ d | tojson }}|{{ -0.0 | tojson }}|{{ u | tojson }}|{{ 'a\"\\n\\u0001' | tojson }}|{{ d | tojson(sort_keys=true) }}",
      "{{ messages[2].tool_calls[0].function.arguments | tojson }}|{{ messages[2].tool_calls[0].function.arguments }}|{{ 'x' | upper | lower }} {{ 'a b c' | wordcount }}",
      "{{ missing | tojson }}",
      // tests
      "{{ d is mapping }} {{ l is iterable }} {{ d is iterable }} {{ s is iterable }} {{ n is iterable }} {{ l is sequence }} {{ s is string }} {{ n is number }} {{ f is float }} {{ n is integer }} {{ true is boolean }} {{ none is none }} {{ d.n is none }} {{ n is odd }} {{ n is divisibleby 7 }} {{ l is not string }} {{ strftime_now is defined }} {{ raise_exception is callable }}",
      "{{ 'x' is sameas 'x' }} {{ 1 is eq 1 }} {{ n is gt 3 }} {{ 'a' is in 'abc' }} {{ 'A' is upper }} {{ d.t is true }} {{ d.t is sameas true }}",
      // loops
      "{% for m in messages %}{{ loop.index }}{{ loop.index0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.revindex }}|{{ loop.previtem.role if loop.previtem is defined else '-' }}|{{ loop.nextitem.role if loop.nextitem else '-' }}|{{ loop.cycle('a', 'b') }};{% endfor %}",
      "{% for k, v in d | items %}{{ k }}={{ v }};{% endfor %}|{% for k in d %}{{ k }}{% endfor %}|{% for k, v in d.items() %}{{ k }}{% endfor %}|{% for c in 'ab' %}{{ c }}.{% endfor %}",
      "{% for i in range(10) %}{% if i == 2 %}{% continue %}{% endif %}{% if i > 4 %}{% break %}{% endif %}{{ i }}{% endfor %}|{% for m in messages if m.role != 'system' %}{{ loop.index }}{{ m.role }}{% endfor %}",
      "{{ range(1500) | length }} {{ range(3) | list }} {{ range(1, 10, 3) | list }} {{ range(5, 0, -2) | list }}",
      "{% set x = 1 %}{% for i in range(2) %}{{ x }}{% set x = x + 1 %}{{ x }}{% endfor %}{{ x }}|{% set ns = namespace(c=0, found=false) %}{% for m in messages %}{% set ns.c = ns.c + 1 %}{% endfor %}{{ ns.c }}",
      "{% for i in range(3) %}{% if loop.first %}{% set y = 5 %}{% endif %}{{ y }},{% endfor %}",
      "{% set a, b = 1, 2 %}{{ a }}{{ b }}{% set t = 1, 2 %}{{ t }}{% set block %}in {{ n }}{% endset %}[{{ block }}]{% with w = 3 %}{{ w }}{% endwith %}",
      // macros, call, filter blocks
      "{% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}{{ greet('a') }} {{ greet('b', punct='?') }} {{ greet(name='c') }}",
      "{% macro wrap() %}[{{ caller() }}]{% endmacro %}{% call wrap() %}inner {{ n }}{% endcall %}|{% filter upper %}shout {{ n }}{% endfilter %}",
      "{% macro r(k) %}{% if k > 0 %}{{ k }}{{ r(k - 1) }}{% endif %}{% endmacro %}{{ r(5) }}",
      // dicts, lists, sandbox
      "{{ {'a': 1, 'b': [1, 2]} }} {{ {'a': 1}.get('a') }} {{ {'a': 1}.get('z', 'dflt') }} {{ d.get('n') }} {{ dict(x=1) }} {{ [1, 2] + [3] }} {{ l.index(2) }} {{ l.count(3) }}",
      "{{ l.append(4) }}",
      "{{ d.update({'z': 1}) }}",
      "{{ d.pop }}|{{ s.__class__ }}|",
      "{{ raise_exception('no system role here') }}",
      "{% if messages[0].role == 'system' %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}",
      "{% generation %}g1{% endgeneration %}x{% generation %}{% endgeneration %}y",
      "{{ strftime_now('%Y') | length }}",
      "{% for m in messages %}{{ m['content'] }}{% endfor %}",
      // precedence, literals, more printing
      "{{ -2 ** 2 }} {{ 2 ** 3 ** 2 }} {{ 10 - 2 - 3 }} {{ messages | length - 1 }} {{ 'a' 'b' }} {{ l.0 }} {{ 1 if 0 else 2 if 0 else 3 }} {{ not missing is defined }}",
      "{{ 7 / 2 }} {{ 6 / 2 }} {{ 0.1 + 0.2 }} {{ 1e100 }} {{ 123456789012345678 }} {{ 1.0e-3 }} {{ 3.0 * 1 }} {{ 2 * 1.5 }} {{ -7.5 // 2 }} {{ 7.5 % 2 }}",
      "{% for m in messages[::-1] %}{{ loop.index0 }}{{ m.role[0] }}{% endfor %} {{ [1, 2, 3][1:] | join('-') }} {{ u[:3] }} {{ u | length }} {{ u[-1] }} {{ u | reverse }}",
      "{{ messages | map(attribute='content') | select('string') | list | length }} {{ ' '.join(l | map('string')) }} {{ '%05.1f' | format(3.14159) }} {{ none | default('x') }} {{ '' | default('x', true) }}",
      "{% set d2 = {'k': 'v', 1: 'one'} %}{{ d2.k }}{{ d2['k'] }}{{ d2[1] }}{{ d2.items() | list }}{% for a, b in [[1, 2], [3, 4]] %}{{ a + b }}{% endfor %}[{{ loop }}]",
      "{%- if true %}\n  x\n{%- endif %}\n  {%- for i in range(2) -%}\n   {{ i }}\n  {%- endfor %}\n{# c #}\n  {% if false %}no{% else %}\n  else\n  {% endif %}\nend",
      "{{ messages[0] }}|{{ messages[1:2] }}|{{ tools[0].function.parameters }}",
      // 64-bit integers: literals, data and arithmetic past 32 bits and past a double's 53
      "{{ big }} {{ big + 1 }} {{ big | tojson }} {{ 2 ** 40 }} {{ 4294967296 * 2147483647 }} {{ 9223372036854775807 }} {{ -9223372036854775807 - 1 }} {{ big // 3 }} {{ big % 1000 }} {{ big > 9007199254740992 }} {{ (big | string)[-3:] }} {{ '9007199254740993' | int }}",
      // integers past 64 bits, as Python's: literals, data, arithmetic, printing, tojson, int()
      "{% set b = 2 ** 100 %}{{ b }} {{ b // 7 }} {{ -b % 7 }} {{ b * b }} {{ b | tojson }} {{ b > 1e30 }} {{ b == 1267650600228229401496703205376 }} {{ 1e20 | int }} {{ '123456789012345678901234567890' | int }} {{ -b | abs }} {{ b is integer }} {{ b / 2 }} {{ 9223372036854775807 + 1 }} {{ -9223372036854775808 // -1 }} {{ messages[2].tool_calls[0].function.arguments.x * 10 ** 30 }}",
      "{{ 2 ** 100000 }}",
      // format specs, printf conversions, rounding as CPython rounds
      "{{ '{:>5}|{:<5}|{:^5}|{:*^7}'.format('a', 'b', 'c', 'd') }}|{{ '{:.2f}|{:,}|{:08.3f}|{:x}|{:#b}|{:e}|{:.3g}|{:+d}|{:5.1%}'.format(3.14159, 1234567, 3.14159, 255, 5, 1234.5, 0.00012345, 3, 0.257) }}|{{ '{0}{1}{0}'.format('a','b') }}|{{ '{!r:>6}'.format('a') }}|{{ '{:.3}'.format('abcdef') }}|{{ '{a[0]}{b.x}{b[x]:>3}'.format(a=[1], b={'x': 2}) }}|{{ '%(a)s-%(b)05.1f' % {'a': 1, 'b': 2} }}",
      "{{ '%.2f' | format(1.005) }}|{{ '%x %o %X %#x %e %g %c %5.1f%% %+d % d %-4d| %05.1f %.0f %.0f %r' % (255, 8, 255, 255, 12345.678, 0.00001234, 65, 99.44, 5, 5, 7, 3.14159, 2.5, 3.5, 'é') }}",
      "{{ 3 | round }}|{{ 1234 | round(-2) }}|{{ -0.5 | round }}|{{ 2.675 | round(2) }}|{{ 1.1 | round(2, 'ceil') }}|{{ 0.285 | round(2, 'floor') }}|{{ true | round }}|{{ -2.5 | round(0, 'floor') }}",
      // dict(), joiner, macro varargs/kwargs, loop.changed, the attr filter (attributes, never keys)
      "{{ dict({'z': 1}, y=2) }}|{{ dict([('k', 'v')]) }}|{% set j = joiner(' + ') %}{% for i in range(3) %}{{ j() }}{{ i }}{% endfor %}|{% macro v(a) %}{{ a }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ v(1, 2, 3, k=4) }}|{% for m in messages %}{{ loop.changed(m.role) }}{% endfor %}|{{ messages | first | attr('role') }}|{{ 'ab' | attr('upper') is defined }}",
      "{% macro w(a) %}{{ a }}{% endmacro %}{{ w(1, 2) }}",
      // floats Java's Double.toString does not write shortest; range printed as Python prints it
      "{{ [5e-324, 2.82879384806159e17, 8.41e21, 1e23, 2.481793947870704e18] }}|{{ [8.41e21, 1e23] | tojson }}|{{ range(0, 10, 3) }}|{{ range(5) }}",
      "{% for a, (b, c) in [[1, [2, 3]], (4, 'xy')] %}{{ a }}{{ b }}{{ c }};{% endfor %}{% for a, b in ['ab', 'cd'] %}{{ b }}{{ a }}{% endfor %}",
      // groupby, batch, slice
      "{% for g in messages | groupby('role') %}{{ g.grouper }}:{{ g.list | map(attribute='content') | join(',') }};{% endfor %}|{% for role, ms in messages | groupby('role') %}{{ role }}{{ ms | length }}{% endfor %}|{{ messages | groupby('role') | map(attribute='grouper') | list }}|{{ (messages | groupby('role'))[0][0] }}|{{ (messages | groupby('role'))[0]['grouper'] }}",
      "{{ [{'k': 'B'}, {'k': 'a'}, {'k': 'b'}, {'x': 1}] | groupby('k', default='z') | map(attribute='list') | map('length') | list }}|{{ [{'k': 'B'}, {'k': 'b'}] | groupby('k', case_sensitive=true) | map(attribute='grouper') | list }}|{{ [{'k': 'B'}, {'k': 'b'}] | groupby('k') | list }}",
      "{{ range(7) | batch(3) | list }} {{ range(7) | batch(3, 'x') | list }} {{ range(6) | batch(2) | list }} {{ range(7) | slice(3) | list }} {{ range(7) | slice(3, 0) | list }} {{ range(2) | slice(4) | list }}",
      // truncate, wordwrap
      "{{ text | truncate(20) }}|{{ text | truncate(20, true) }}|{{ text | truncate(20, false, '..', 0) }}|{{ 'short' | truncate(255) }}|{{ 'abcdefghij' | truncate(7) }}|{{ u | truncate(3, true, '') }}|{{ text | truncate(65) }}",
      "{{ text | wordwrap(10) }}|{{ 'aaaaaaaaaaaaaaaa bb' | wordwrap(5) }}|{{ 'aaaaaaaaaaaa bb' | wordwrap(5, false) }}|{{ 'a b c d e f' | wordwrap(3, wrapstring='-') }}|{{ 'over-long-words here' | wordwrap(6) }}|{{ text | wordwrap(12, break_on_hyphens=false) }}|{{ '' | wordwrap }}",
      "{{ 'x' | truncate(2) }}",
      // recursive loops
      "{% for item in tree recursive %}{{ loop.depth }}{{ item.name }}{% if item.children %}({{ loop(item.children) }}){% endif %}{% if not loop.last %},{% endif %}{% endfor %}|{% for item in tree if item.name != 'a2' recursive %}{{ loop.depth0 }}{{ loop.index }}{{ item.name }}[{{ loop(item.children or []) }}]{% else %}-{% endfor %}",
      "{% for x in [1] %}{{ loop([2]) }}{% endfor %}",
      "{% for x in [[1]] recursive %}{{ loop(x) }}{% endfor %}");

  @Test
  void everyCaseRendersAsJinja2RendersItOrIsRefusedWhereJinja2Raises() throws Exception {
    List<JinjaReference.Case> cases = new ArrayList<>();
    for (String t : TEMPLATES) cases.add(new JinjaReference.Case(t, VARS));
    List<JinjaReference.Answer> answers = JinjaReference.render(dir, cases);
    List<String> wrong = new ArrayList<>();
    int refused = 0;
    for (int i = 0; i < TEMPLATES.size(); i++) {
      JinjaReference.Answer a = answers.get(i);
      String weft;
      try {
        weft = Template.compile(TEMPLATES.get(i)).render(VARS, Limits.DEFAULT).text();
      } catch (TemplateError e) {
        assertThat(e.getMessage()).as("case %d", i).doesNotContain("\n");
        weft = null;
        if (a.text() == null) refused++;
        else wrong.add("case " + i + ": Weft refused (" + e.getMessage() + "), Jinja2 rendered " + a.text());
        continue;
      }
      if (a.text() == null) wrong.add("case " + i + ": Jinja2 raised (" + a.error() + "), Weft rendered " + weft);
      else if (!a.text().equals(weft)) wrong.add("case " + i + ":\n  jinja2: " + a.text() + "\n  weft:   " + weft);
    }
    assertThat(wrong).as(String.join("\n", wrong)).isEmpty();
    assertThat(refused).as("cases Jinja2 raises on, refused by Weft").isGreaterThanOrEqualTo(11);
  }
}
