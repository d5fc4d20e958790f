package dev.weft.tokenizer.chat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.testing.PythonRef;
import dev.weft.util.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Renders many (template, variables) cases with transformers' own Jinja2 set-up in one python process
 * (jinja_reference.py): the text it renders, or the error it raises, per case.
 */
public final class JinjaReference {
  private JinjaReference() {}

  /** One case: a template and the variables it is rendered with. */
  public record Case(String template, Map<String, Object> vars) {}

  /** Jinja2's answer: the text (and its generation blocks' texts, else null), or (text null) the error it raised. */
  public record Answer(String text, List<String> spans, String error) {}

  public static List<Answer> render(Path dir, List<Case> cases) throws Exception {
    PythonRef.require("transformers", "jinja2");
    Path script = dir.resolve("jinja_reference.py");
    try (var in = JinjaReference.class.getResourceAsStream("/dev/weft/tokenizer/chat/jinja_reference.py")) {
      Files.copy(in, script, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    List<Map<String, Object>> json = new ArrayList<>();
    for (Case c : cases) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("template", c.template());
      m.put("vars", c.vars());
      json.add(m);
    }
    Path in = dir.resolve("cases.json"), out = dir.resolve("answers.json");
    Json.PLAIN.writeValue(in.toFile(), json);
    Process p = new ProcessBuilder(PythonRef.command(script.toString(), in.toString(), out.toString())).redirectErrorStream(true).start();
    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) throw new AssertionError("jinja_reference.py failed:\n" + log);
    List<Answer> answers = new ArrayList<>();
    for (JsonNode a : Json.PLAIN.readTree(out.toFile())) {
      List<String> spans = null;
      if (a.has("spans")) {
        spans = new ArrayList<>();
        for (JsonNode s : a.get("spans")) spans.add(s.textValue());
      }
      answers.add(a.has("text") ? new Answer(a.get("text").textValue(), spans, null) : new Answer(null, null, a.get("error").textValue()));
    }
    return answers;
  }
}
