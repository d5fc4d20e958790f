package dev.weft.tokenizer.chat;

import dev.weft.error.WeftException;

/**
 * A chat template Weft cannot render (a construct it does not support: {@link #conversation()} false), or a
 * conversation the template, or Weft reading its output, refused ({@code raise_exception}: true).
 */
public final class ChatTemplateException extends WeftException {
  private final boolean conversation;

  private ChatTemplateException(String message, boolean conversation) {
    super(message);
    this.conversation = conversation;
  }

  /** The template uses something Weft's engine does not have. */
  static ChatTemplateException unsupported(String message) { return new ChatTemplateException(message, false); }

  /** The template (or the target search over its output) refused this conversation. */
  static ChatTemplateException refused(String message) { return new ChatTemplateException(message, true); }

  /** Whether the conversation, not the template, is at fault. */
  public boolean conversation() { return conversation; }
}
