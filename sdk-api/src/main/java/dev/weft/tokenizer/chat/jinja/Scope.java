package dev.weft.tokenizer.chat.jinja;

import java.util.HashMap;
import java.util.Map;

/** Variables of one level: a loop turn, a macro call, the template; lookups fall through to the enclosing one. */
final class Scope {
  private final Scope parent;
  private final Map<String, Object> vars = new HashMap<>();

  Scope(Scope parent) { this.parent = parent; }

  Object get(String name) {
    for (Scope s = this; s != null; s = s.parent) {
      if (s.vars.containsKey(name)) return s.vars.get(name);
    }
    return Undefined.named(name);
  }

  void set(String name, Object value) { vars.put(name, value); }
}
