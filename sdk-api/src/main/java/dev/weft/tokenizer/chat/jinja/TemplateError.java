package dev.weft.tokenizer.chat.jinja;

/**
 * Why a template could not be compiled or rendered, in one line. {@link Kind} tells the template's fault (syntax,
 * a construct this engine lacks) from the render's ({@code raise_exception}, Jinja2's runtime errors, a limit).
 */
public final class TemplateError extends RuntimeException {
  /** What went wrong. */
  public enum Kind {
    /** The template does not parse, or uses what the engine refuses (include, unknown filters, ...). */
    SYNTAX,
    /** The template called {@code raise_exception(message)}. */
    RAISED,
    /** Jinja2 would raise too: an undefined value used, a type error, a sandbox refusal. */
    RUNTIME,
    /** The render went past its step budget, output size or nesting depth. */
    LIMIT
  }

  private final Kind kind;

  TemplateError(Kind kind, String message) {
    super(message, null, false, false); // no stack trace: these are messages for a user
    this.kind = kind;
  }

  public Kind kind() { return kind; }

  static TemplateError syntax(int line, String message) { return new TemplateError(Kind.SYNTAX, "line " + line + ": " + message); }

  static TemplateError runtime(String message) { return new TemplateError(Kind.RUNTIME, message); }

  static TemplateError limit(String message) { return new TemplateError(Kind.LIMIT, message); }
}
