package dev.weft.data.prepare;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.weft.error.WeftException;
import dev.weft.spec.SpecException;
import dev.weft.util.Json;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The rows of a Parquet file (the Hugging Face Hub's dataset format), read in file order by DuckDB embedded
 * in-process (its JDBC driver; no Hadoop), each row as the JSON object DuckDB's {@code to_json} makes of it:
 * strings, numbers, lists and structs as JSON, NULL as null.
 */
final class ParquetRows {
  private ParquetRows() {}

  static void read(Path file, Rows.Sink sink) {
    String path = file.toAbsolutePath().toString().replace("'", "''");
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
         Statement s = c.createStatement()) {
      s.execute("SET preserve_insertion_order = true");
      try (ResultSet rs = s.executeQuery("SELECT to_json(t) FROM read_parquet('" + path + "') AS t")) {
        long row = 0;
        while (rs.next()) {
          row++;
          sink.row(file + " row " + row, Json.PLAIN.readTree(rs.getString(1)));
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
