package dev.weft.tokenizer.chat.jinja;

/**
 * Jinja2's {@code Undefined}: what a missing variable, key, attribute or index gives. It prints empty, is false,
 * iterates as nothing and has length 0; using it further (an attribute, an item, a call, arithmetic) raises
 * {@link #error()}, whose message is Jinja2's.
 */
record Undefined(String message) {
  static Undefined named(String name) { return new Undefined("'" + name + "' is undefined"); }

  TemplateError error() { return TemplateError.runtime(message); }

  @Override
  public String toString() { return ""; }
}
