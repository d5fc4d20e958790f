package dev.weft.data.prepare;

import dev.weft.spec.SpecException;
import java.nio.file.Path;
import java.util.Locale;

/** How an input file holds its documents. */
public enum InputFormat {
  /** Plain UTF-8 text: the whole file is one document. */
  TEXT,
  /** One JSON object per line; the document is the string in {@code --field}. */
  JSONL;

  /** {@code auto} picks by extension: {@code .jsonl}, {@code .ndjson}, {@code .json} are JSONL, anything else text. */
  public static InputFormat of(String option, Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".parquet") || "parquet".equalsIgnoreCase(option)) {
      throw new SpecException("--input", file + " is Parquet, which weft data prepare does not read yet; convert it to JSONL "
          + "(pandas.read_parquet(f).to_json(out, orient='records', lines=True)) and pass --field");
    }
    if (option != null && !"auto".equalsIgnoreCase(option)) {
      try {
        return valueOf(option.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new SpecException("--format", "'" + option + "' is not a format; use auto, text or jsonl");
      }
    }
    return name.endsWith(".jsonl") || name.endsWith(".ndjson") || name.endsWith(".json") ? JSONL : TEXT;
  }
}
