package dev.weft.data.prepare;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.spec.SpecException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.LongConsumer;

/** The rows of a JSONL file (one JSON object a line; blank lines skipped) or of a Parquet file, as JSON objects. */
final class Rows {
  /** Rows with no limit on a string's length but the line's (the file allows lines of any length). */
  private static final ObjectMapper LINES = new ObjectMapper(JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build()).build());

  private Rows() {}

  /** The bytes {@code s} takes as UTF-8 (an unpaired surrogate, which the decoder never gives, counted as 3). */
  static long utf8Length(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) n++;
      else if (c < 0x800) n += 2;
      else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else n += 3;
    }
    return n;
  }

  /** Receives each row and where it is ("FILE line N", "FILE row N") for messages. */
  interface Sink {
    void row(String where, JsonNode row);
  }

  static boolean isParquet(Path file) { return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".parquet"); }

  /**
   * Reads {@code file}'s rows; {@code bytesRead} is told each row's bytes once the row is handled, so progress counts
   * what was done, not what was read ahead. A line may be as long as a Java string can be (Jackson's default limit of
   * 20 million characters per string value is lifted).
   */
  static void read(Path file, boolean replaceInvalid, LongConsumer bytesRead, Sink sink) {
    if (isParquet(file)) {
      ParquetReader reader = ParquetReader.find().orElseThrow(() -> new SpecException("--input", file
          + " is Parquet, which the weft command reads (dev.weft:weft-cli, DuckDB); add weft-cli to the class path or give JSONL"));
      reader.read(file, sink::row);
      bytesRead.accept(Prepare.size(file));
      return;
    }
    Documents.withReader(file, replaceInvalid, n -> {}, in -> {
      long line = 0;
      for (String s; (s = in.readLine()) != null; ) {
        line++;
        if (s.isBlank()) {
          bytesRead.accept(utf8Length(s) + 1);
          continue;
        }
        JsonNode node;
        try {
          node = LINES.readTree(s);
        } catch (JsonProcessingException e) {
          throw new SpecException("--input", file + " line " + line + " is not JSON (" + e.getOriginalMessage().lines().findFirst().orElse("")
              + "); give one JSON object per line, or --format text");
        }
        sink.row(file + " line " + line, node);
        bytesRead.accept(utf8Length(s) + 1);
      }
    });
  }
}
