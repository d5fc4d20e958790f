package dev.weft.data.prepare;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ServiceLoader;
import java.util.function.BiConsumer;

/**
 * Reads a Parquet file's rows as JSON objects, in file order. sdk-api has no Parquet reader of its own (DuckDB is an
 * 80 MB jar): the {@code weft} command's module (weft-cli) provides one through {@link ServiceLoader}; without it a
 * {@code .parquet} input is refused in one line.
 */
public interface ParquetReader {
  /** Calls {@code row} with each row and where it is ({@code "FILE row N"}). */
  void read(Path file, BiConsumer<String, JsonNode> row);

  /** The reader on the class path, if any. */
  static java.util.Optional<ParquetReader> find() {
    return ServiceLoader.load(ParquetReader.class).findFirst();
  }
}
