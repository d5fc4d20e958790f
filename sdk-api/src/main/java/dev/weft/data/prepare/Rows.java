package dev.weft.data.prepare;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.spec.SpecException;
import dev.weft.util.Json;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.LongConsumer;

/** The rows of a JSONL file (one JSON object a line; blank lines skipped) or of a Parquet file, as JSON objects. */
final class Rows {
  private Rows() {}

  /** Receives each row and where it is ("FILE line N", "FILE row N") for messages. */
  interface Sink {
    void row(String where, JsonNode row);
  }

  static boolean isParquet(Path file) { return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".parquet"); }

  static void read(Path file, boolean replaceInvalid, LongConsumer bytesRead, Sink sink) {
    if (isParquet(file)) {
      ParquetRows.read(file, sink);
      bytesRead.accept(Prepare.size(file));
      return;
    }
    Documents.withReader(file, replaceInvalid, bytesRead, in -> {
      long line = 0;
      for (String s; (s = in.readLine()) != null; ) {
        line++;
        if (s.isBlank()) continue;
        JsonNode node;
        try {
          node = Json.PLAIN.readTree(s);
        } catch (JsonProcessingException e) {
          throw new SpecException("--input", file + " line " + line + " is not JSON; give one JSON object per line, or --format text");
        }
        sink.row(file + " line " + line, node);
      }
    });
  }
}
