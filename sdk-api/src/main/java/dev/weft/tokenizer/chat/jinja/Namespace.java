package dev.weft.tokenizer.chat.jinja;

import java.util.LinkedHashMap;
import java.util.Map;

/** Jinja2's {@code namespace(...)}: the one value a template may change ({@code {% set ns.x = ... %}}), across loop scopes. */
final class Namespace {
  private final Map<String, Object> values = new LinkedHashMap<>();

  Map<String, Object> values() { return values; }
}
