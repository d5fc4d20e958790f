package dev.weft.data.prepare;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.spec.SpecException;
import dev.weft.util.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A row of chat data → the conversation a chat template reads. A row holds a list of {role, content} messages (the
 * Hugging Face chat format, in {@code field}, {@code messages} by default), or a {@code prompt} and a
 * {@code completion}: strings (a user turn and the assistant's answer) or lists of messages (put end to end).
 * {@code tools} and {@code documents}, when the row has them, are passed to the template as transformers passes them.
 */
final class Conversations {
  private static final List<String> EXTRAS = List.of("tools", "documents");

  /** The messages and the other template variables of one row. */
  record Conversation(List<Object> messages, Map<String, Object> extra) {}

  private Conversations() {}

  static Conversation of(JsonNode row, String field, String where) {
    List<Object> messages = new ArrayList<>();
    JsonNode m = row.get(field);
    if (m != null && !m.isNull()) {
      if (!m.isArray()) {
        throw new SpecException("--field", where + ": '" + field + "' is not a list of messages; name the field that holds "
            + "the [{role, content}, ...] list with --field");
      }
      addMessages(messages, m, where);
    } else if (present(row, "prompt") && present(row, "completion")) {
      addTurn(messages, row.get("prompt"), "user", where);
      addTurn(messages, row.get("completion"), "assistant", where);
    } else {
      throw new SpecException("--field", where + " has neither a list of messages in '" + field + "' nor prompt and completion; "
          + "name the field that holds the messages with --field");
    }
    Map<String, Object> extra = new LinkedHashMap<>();
    for (String k : EXTRAS) if (present(row, k)) extra.put(k, plain(row.get(k)));
    return new Conversation(messages, extra);
  }

  private static boolean present(JsonNode row, String k) { return row.get(k) != null && !row.get(k).isNull(); }

  /** A string as one {@code role} turn, or a list of messages put end to end. */
  static void addTurn(List<Object> messages, JsonNode v, String role, String where) {
    if (v.isTextual()) messages.add(Map.of("role", role, "content", v.textValue()));
    else if (v.isArray()) addMessages(messages, v, where);
    else throw new SpecException("--input", where + ": the " + (role.equals("user") ? "prompt" : "answer")
        + " is neither a string nor a list of messages");
  }

  private static void addMessages(List<Object> messages, JsonNode list, String where) {
    int i = 0;
    for (JsonNode msg : list) {
      i++;
      if (!msg.isObject() || !msg.path("role").isTextual()) {
        throw new SpecException("--input", where + ": message " + i + " has no string 'role'; messages are {\"role\": ..., \"content\": ...}");
      }
      Map<String, Object> copy = new LinkedHashMap<>();
      msg.fields().forEachRemaining(e -> { if (!e.getValue().isNull()) copy.put(e.getKey(), plain(e.getValue())); });
      messages.add(copy);
    }
  }

  /** JSON → maps, lists, strings, numbers and booleans, which the template engine reads. */
  private static Object plain(JsonNode v) { return Json.PLAIN.convertValue(v, Object.class); }
}
