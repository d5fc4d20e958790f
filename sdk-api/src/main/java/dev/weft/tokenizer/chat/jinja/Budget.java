package dev.weft.tokenizer.chat.jinja;

/** One render's use of its {@link Limits}: counted as it goes, refused the moment it passes them. */
final class Budget {
  private final Limits limits;
  private long steps;
  private int depth;

  Budget(Limits limits) { this.limits = limits; }

  void step() {
    if (++steps > limits.maxSteps()) {
      throw TemplateError.limit("the chat template ran past its budget of " + limits.maxSteps() + " steps");
    }
  }

  /** A value of {@code size} characters or items is about to be built. */
  void charge(long size) {
    if (size > limits.maxChars()) {
      throw TemplateError.limit("the chat template built a value of " + size + " characters or items, past the limit of " + limits.maxChars());
    }
    steps += size / 16;
    step();
  }

  void enter() {
    if (++depth > Limits.MAX_DEPTH) throw TemplateError.limit("the chat template nests calls deeper than " + Limits.MAX_DEPTH);
  }

  void leave() { depth--; }

  long maxChars() { return limits.maxChars(); }
}
