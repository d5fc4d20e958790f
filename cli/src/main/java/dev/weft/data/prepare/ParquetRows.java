package dev.weft.data.prepare;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.error.WeftException;
import dev.weft.spec.SpecException;
import dev.weft.util.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;

/**
 * The rows of a Parquet file (the Hugging Face Hub's dataset format), read in file order by DuckDB embedded
 * in-process (its JDBC driver; no Hadoop), each row as the JSON object DuckDB's {@code to_json} makes of it:
 * strings, numbers, lists and structs as JSON, NULL as null.
 */
public final class ParquetRows implements ParquetReader {
  /** What DuckDB's file globbing reads as a pattern. */
  private static final Pattern GLOB = Pattern.compile("[*?\\[\\]{}]");

  /** For {@link java.util.ServiceLoader} (META-INF/services/dev.weft.data.prepare.ParquetReader). */
  public ParquetRows() {}


  @Override
  public void read(Path file, BiConsumer<String, JsonNode> sink) {
    Path plain = null;
    try {
      plain = literal(file);
      rows(file, plain, sink);
    } finally {
      if (plain != null) delete(plain);
    }
  }

  /**
   * DuckDB reads a path as a glob ({@code [ab].parquet} is a.parquet and b.parquet), so a name with glob characters is
   * read through a link of a plain name in a new temporary directory: the input is that file and nothing else.
   */
  private static Path literal(Path file) {
    if (!GLOB.matcher(file.toAbsolutePath().toString()).find()) return null;
    try {
      Path dir = Files.createTempDirectory("weft-parquet");
      if (GLOB.matcher(dir.toString()).find()) throw new WeftException("the temporary directory " + dir + " has glob characters; set java.io.tmpdir");
      return Files.createSymbolicLink(dir.resolve("input.parquet"), file.toAbsolutePath());
    } catch (IOException e) {
      throw new WeftException("cannot link " + file + " under a plain name for DuckDB: " + e.getMessage(), e);
    }
  }

  private static void delete(Path link) {
    try {
      Files.deleteIfExists(link);
      Files.deleteIfExists(link.getParent());
    } catch (IOException ignored) {
      // a temporary directory left behind is harmless
    }
  }

  private static void rows(Path file, Path plain, BiConsumer<String, JsonNode> sink) {
    String path = (plain != null ? plain : file.toAbsolutePath()).toString().replace("'", "''");
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
         Statement s = c.createStatement()) {
      s.execute("SET preserve_insertion_order = true");
      try (ResultSet rs = s.executeQuery("SELECT to_json(t) FROM read_parquet('" + path + "') AS t")) {
        long row = 0;
        while (rs.next()) {
          row++;
          sink.accept(file + " row " + row, Json.PLAIN.readTree(rs.getString(1)));
        }
      }
    } catch (SQLException e) {
      throw new SpecException("--input", file + " cannot be read as Parquet (" + e.getMessage().lines().findFirst().orElse("")
          + "); give a Parquet file, or JSONL");
    } catch (JsonProcessingException e) {
      throw new WeftException("DuckDB gave a row of " + file + " that is not JSON: " + e.getMessage(), e);
    }
  }
}
