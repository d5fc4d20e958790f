package dev.weft.tracking;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.error.WeftException;
import dev.weft.util.BoundedFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code lineage.json}: where a run's model came from (see {@link RunLineage} for what a run writes, {@link
 * ExportLineage} for an export's copy), read back and compared field by field.
 */
public final class Lineage {
  public static final String FILE = "lineage.json";
  static final ObjectMapper MAPPER = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
      .enable(SerializationFeature.INDENT_OUTPUT);
  private static final long MAX_BYTES = 64L << 20;

  private Lineage() {}

  /** The lineage of {@code dirOrFile}: a run or export directory holding {@code lineage.json}, or the file itself. */
  public static ObjectNode read(Path dirOrFile) {
    Path f = Files.isDirectory(dirOrFile) ? dirOrFile.resolve(FILE) : dirOrFile;
    if (!Files.isRegularFile(f)) {
      throw new dev.weft.error.BadInputException(dirOrFile + " holds no " + FILE + "; give a run directory or a directory weft checkpoint export wrote");
    }
    try {
      JsonNode n = MAPPER.readTree(BoundedFiles.read(f, MAX_BYTES));
      if (!(n instanceof ObjectNode o)) throw new dev.weft.error.BadInputException(f + " is not a lineage object");
      return o;
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) { // a file given that is not one
      throw new dev.weft.error.BadInputException(f + " is not a lineage.json (" + e.getOriginalMessage() + ")");
    } catch (IOException e) {
      throw new WeftException("cannot read " + f + ": " + e.getMessage(), e);
    }
  }

  /** The lineage in {@code file}, or null when there is none (or it cannot be read). */
  static ObjectNode readOrNull(Path file) {
    if (!Files.isRegularFile(file)) return null;
    try {
      return read(file);
    } catch (WeftException e) {
      return null;
    }
  }

  /** Writes {@code lineage} atomically as {@code file}. */
  static synchronized void write(ObjectNode lineage, Path file) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      MAPPER.writeValue(tmp.toFile(), lineage);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** Every leaf of {@code n} by its path ({@code data[0].files[1].sha256}), in path order. */
  public static Map<String, String> flatten(JsonNode n) {
    Map<String, String> out = new TreeMap<>();
    flatten(n, "", out);
    return out;
  }

  private static void flatten(JsonNode n, String at, Map<String, String> out) {
    if (n.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext();) {
        var e = it.next();
        flatten(e.getValue(), at.isEmpty() ? e.getKey() : at + "." + e.getKey(), out);
      }
    } else if (n.isArray()) {
      for (int i = 0; i < n.size(); i++) flatten(n.get(i), at + "[" + i + "]", out);
      if (n.isEmpty()) out.put(at, "[]");
    } else {
      out.put(at, n.isTextual() ? n.asText() : n.toString());
    }
  }

  /**
   * The fields whose values differ between {@code a} and {@code b}: path → {a's, b's} (null where one lacks it). An
   * empty list and a missing field are the same (an older lineage without a list of nothing differs in nothing).
   */
  public static Map<String, String[]> diff(JsonNode a, JsonNode b) {
    Map<String, String> fa = flatten(a), fb = flatten(b);
    Map<String, String[]> out = new TreeMap<>();
    java.util.Set<String> keys = new java.util.TreeSet<>(fa.keySet());
    keys.addAll(fb.keySet());
    for (String k : keys) {
      String x = fa.get(k), y = fb.get(k);
      boolean same = java.util.Objects.equals(x, y) || (x == null && "[]".equals(y)) || ("[]".equals(x) && y == null);
      if (!same) out.put(k, new String[] {x, y});
    }
    return out;
  }
}
