package dev.weft.checkpoint;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;

/** Writes a JSON tree with one member of its {@code target}-th non-empty object (depth first) given twice, the second time with {@code value}. */
final class JsonDup {
  private static final ObjectMapper M = new ObjectMapper();

  private JsonDup() {}

  /** How many non-empty objects {@code n} holds, itself included. */
  static int objects(JsonNode n) {
    int k = n.isObject() && n.size() > 0 ? 1 : 0;
    for (JsonNode c : n) k += objects(c);
    return k;
  }

  static byte[] write(JsonNode root, int target, int member, JsonNode value) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = M.getFactory().createGenerator(out)) {
      g.useDefaultPrettyPrinter();
      write(g, root, new int[] {target}, member, value);
    }
    return out.toByteArray();
  }

  private static void write(JsonGenerator g, JsonNode n, int[] left, int member, JsonNode value) throws IOException {
    if (n.isObject()) {
      boolean here = n.size() > 0 && left[0]-- == 0;
      int pick = here ? Math.floorMod(member, n.size()) : -1;
      g.writeStartObject();
      int i = 0;
      for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); i++) {
        Map.Entry<String, JsonNode> f = it.next();
        g.writeFieldName(f.getKey());
        write(g, f.getValue(), left, member, value);
        if (i == pick) {
          g.writeFieldName(f.getKey());
          g.writeTree(value == null ? f.getValue() : value);
        }
      }
      g.writeEndObject();
    } else if (n.isArray()) {
      g.writeStartArray();
      for (JsonNode c : n) write(g, c, left, member, value);
      g.writeEndArray();
    } else {
      g.writeTree(n);
    }
  }
}
