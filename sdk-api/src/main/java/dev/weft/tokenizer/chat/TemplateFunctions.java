package dev.weft.tokenizer.chat;

import java.time.LocalDateTime;

/** The globals transformers gives chat templates: {@code raise_exception(message)} and {@code strftime_now(format)}. */
public final class TemplateFunctions {
  /** The message of the last {@code raise_exception} on this thread's render (the engine records, not rethrows, it). */
  private static final ThreadLocal<String> RAISED = new ThreadLocal<>();

  private TemplateFunctions() {}

  /** Stops the render; the conversation is refused with {@code message}. */
  public static String raiseException(Object message) {
    String m = String.valueOf(message);
    if (RAISED.get() == null) RAISED.set(m);
    throw ChatTemplateException.refused(m);
  }

  /** The local time now, formatted as Python's {@code strftime} would. */
  public static String strftimeNow(String format) { return PythonValues.strftime(format, LocalDateTime.now()); }

  /** What {@code raise_exception} said during the render just ended (null: nothing), forgotten once read. */
  static String takeRaised() {
    String m = RAISED.get();
    RAISED.remove();
    return m;
  }
}
