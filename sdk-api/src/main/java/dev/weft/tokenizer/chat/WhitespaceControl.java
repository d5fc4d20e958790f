package dev.weft.tokenizer.chat;

import java.util.regex.Pattern;

/**
 * Jinja's whitespace control ({@code {%- ... -%}}, {@code {{- ... -}}}, {@code {#- ... -#}}) applied to the source
 * before Jinjava parses it: the whitespace of the template data next to a marked tag goes, and the mark with it.
 * Jinjava's own handling keeps the indentation of a line whose tag is marked when {@code lstrip_blocks} is on, which
 * the indented templates of Qwen and others would render as stray spaces.
 */
final class WhitespaceControl {
  private static final Pattern BEFORE = Pattern.compile("\\s*\\{([%{#])-");
  private static final Pattern AFTER = Pattern.compile("-([%}#])}\\s*");

  private WhitespaceControl() {}

  static String apply(String source) {
    return AFTER.matcher(BEFORE.matcher(source).replaceAll("{$1")).replaceAll("$1}");
  }
}
