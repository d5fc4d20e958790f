package dev.weft.data.prepare;

import dev.weft.spec.SpecException;
import java.nio.file.Path;
import java.util.Locale;

/** How an input file holds its documents. */
public enum InputFormat {
  /** Plain UTF-8 text: the whole file is one document. */
  TEXT,
  /** Rows (JSON objects a line, or Parquet); the document is the string in {@code --field}. */
  JSONL,
  /** Rows of conversations (messages, or prompt/completion), rendered with the tokenizer's chat template. */
  CHAT,
  /** Rows of preference pairs (prompt, chosen, rejected), rendered with the chat template, for DPO. */
  PREFERENCE;

  /**
   * {@code auto} picks by extension: {@code .jsonl}, {@code .ndjson}, {@code .json} and {@code .parquet} are rows of
   * text, anything else text.
   */
  public static InputFormat of(String option, Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    InputFormat f;
    if (option != null && !"auto".equalsIgnoreCase(option)) {
      try {
        f = valueOf(option.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new SpecException("--format", "'" + option + "' is not a format; use auto, text, jsonl, chat or preference");
      }
    } else {
      f = name.endsWith(".jsonl") || name.endsWith(".ndjson") || name.endsWith(".json") || Rows.isParquet(file) ? JSONL : TEXT;
    }
    if (f == TEXT && Rows.isParquet(file)) {
      throw new SpecException("--format", file + " is Parquet, whose rows are not plain text; use --format jsonl with --field, or chat");
    }
    return f;
  }

  /** The field that holds the document when {@code --field} is not given. */
  public String defaultField() { return this == CHAT ? "messages" : "text"; }
}
