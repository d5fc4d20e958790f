package dev.weft.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonLinesTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aLineIsOneObjectWithItsFieldsAndEscapedNewlines() throws Exception {
    String line = JsonLine.format(Instant.parse("2026-12-01T10:00:00Z"), "WARN", 3, 40L, "dev.weft.X", "two\nlines \"quoted\"");
    assertThat(line).doesNotContain("\n");
    JsonNode n = JSON.readTree(line);
    assertThat(n.toString()).isEqualTo(
        "{\"ts\":\"2026-12-01T10:00:00Z\",\"level\":\"WARN\",\"rank\":3,\"step\":40,\"logger\":\"dev.weft.X\",\"message\":\"two\\nlines \\\"quoted\\\"\"}");
    assertThat(JSON.readTree(JsonLine.format(Instant.EPOCH, "INFO", null, null, "l", "m")).has("rank")).as("unknown rank").isFalse();
  }

  @Test
  void theStreamWrapsTextAndPassesObjectsThrough() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new JsonLinesStream(new PrintStream(bytes, true, StandardCharsets.UTF_8), "INFO");
    out.println("weft: training on 2 processes");
    out.print("no newline yet, ");
    out.println("now");
    out.println("{\"level\":\"INFO\",\"rank\":1,\"message\":\"from a worker\"}");
    out.println("{not json");
    out.println();
    out.close();
    List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines).hasSize(4);
    assertThat(JSON.readTree(lines.get(0)).path("message").asText()).isEqualTo("weft: training on 2 processes");
    assertThat(JSON.readTree(lines.get(0)).path("logger").asText()).isEqualTo("stdout");
    assertThat(JSON.readTree(lines.get(1)).path("message").asText()).isEqualTo("no newline yet, now");
    assertThat(lines.get(2)).isEqualTo("{\"level\":\"INFO\",\"rank\":1,\"message\":\"from a worker\"}");
    assertThat(JSON.readTree(lines.get(3)).path("message").asText()).isEqualTo("{not json");
  }

  @Test
  void onlyObjectsAreObjects() {
    assertThat(JsonLine.isObject("{\"a\":1}")).isTrue();
    assertThat(JsonLine.isObject("[1]")).isFalse();
    assertThat(JsonLine.isObject("{\"a\":1} trailing")).isFalse();
    assertThat(JsonLine.isObject("step 3/4 loss=1.0")).isFalse();
  }
}
