package dev.weft.tokenizer.chat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.data.TokenArray;
import dev.weft.testing.PythonRef;
import dev.weft.util.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs chat_reference.py (tokenizers, templates, 50 conversations as JSONL and Parquet, transformers' answers) or another
 * reference script of dev/weft/data/prepare; each imports chat_ref.py, the one module they share.
 */
public final class ChatReference {
  private ChatReference() {}

  /** Writes everything under {@code dir}; returns reference.json. */
  public static JsonNode make(Path dir) throws Exception { return make(dir, "chat_reference.py"); }

  /** Runs the reference script {@code name} (of dev/weft/data/prepare) writing under {@code dir}; returns its reference.json. */
  public static JsonNode make(Path dir, String name) throws Exception {
    Path script = dir.resolve(name);
    for (String file : List.of(name, "chat_ref.py")) { // chat_ref.py: what the reference scripts share
      try (var in = ChatReference.class.getResourceAsStream("/dev/weft/data/prepare/" + file)) {
        Files.copy(in, dir.resolve(file), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Process p = new ProcessBuilder(PythonRef.command(script.toString(), dir.toString())).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) throw new AssertionError(name + " failed:\n" + out);
    return Json.PLAIN.readTree(dir.resolve("reference.json").toFile());
  }

  /** Every id of a token array. */
  public static int[] all(TokenArray a) {
    int[] out = new int[(int) a.size()];
    a.read(0, out);
    return out;
  }

  /** Lists of ints put end to end. */
  public static int[] concat(JsonNode lists) {
    List<Integer> out = new ArrayList<>();
    for (JsonNode l : lists) for (JsonNode v : l) out.add(v.asInt());
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  /** The rows of a JSONL file as maps. */
  @SuppressWarnings("unchecked")
  public static List<Map<String, Object>> rows(Path jsonl) throws Exception {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (String line : Files.readAllLines(jsonl)) if (!line.isBlank()) rows.add(Json.PLAIN.readValue(line, Map.class));
    return rows;
  }

  public static int[] ints(JsonNode array) {
    int[] out = new int[array.size()];
    for (int i = 0; i < out.length; i++) out[i] = array.get(i).asInt();
    return out;
  }
}
