package dev.weft.log;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.util.Json;
import java.time.Instant;

/**
 * One log line as one JSON object: {@code ts} (ISO-8601 UTC), {@code level}, {@code rank} and {@code step}
 * when known, {@code logger}, {@code message}. Newlines inside the message are escaped, so a line is an
 * object. Pure.
 */
public final class JsonLine {
  private static final ObjectMapper JSON = Json.PLAIN;

  private JsonLine() {}

  public static String format(Instant ts, String level, Integer rank, Long step, String logger, String message) {
    ObjectNode n = JSON.createObjectNode();
    n.put("ts", ts.toString());
    n.put("level", level);
    if (rank != null) n.put("rank", rank);
    if (step != null) n.put("step", step);
    n.put("logger", logger);
    n.put("message", message);
    try {
      return JSON.writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A line of this process, with its rank and step from {@link LogContext}. */
  public static String now(String level, String logger, String message) {
    return format(Instant.now(), level, LogContext.rank(), LogContext.step(), logger, message);
  }

  /** Whether {@code line} already is one JSON object (a worker's line, passed through as it is). */
  public static boolean isObject(String line) {
    String t = line.strip();
    if (!t.startsWith("{") || !t.endsWith("}")) return false;
    try {
      JsonNode n = JSON.readTree(t);
      return n != null && n.isObject();
    } catch (JsonProcessingException e) {
      return false;
    }
  }
}
