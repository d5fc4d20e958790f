package dev.weft.train.grpo;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.error.BadInputException;
import dev.weft.tokenizer.HfTokenizer;
import dev.weft.tokenizer.Tokenizer;
import dev.weft.tokenizer.chat.ChatTemplate;
import dev.weft.tokenizer.chat.ChatTemplateException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * GRPO's prompts: a JSONL file, one row per line with a {@code prompt} (text, tokenised as it is) or {@code messages}
 * (a conversation, rendered through the tokenizer's chat template with the generation prompt, as SFT data is), and
 * any other fields, which the rewards receive. {@code texts} are what the rewards see as the prompt.
 */
public record PromptSet(String source, List<String> texts, List<long[]> ids, List<Map<String, Object>> rows) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public int size() { return rows.size(); }

  /** How messages name a row: its line in the file. */
  public String rowId(int index) { return "line " + (index + 1) + " of " + source; }

  public static PromptSet open(Path file, Tokenizer tokenizer) { return open(file, tokenizer, "data.source"); }

  /** The prompts of {@code file}, named in messages by the spec field that gave it ({@code data.source}, {@code data.eval}). */
  public static PromptSet open(Path file, Tokenizer tokenizer, String field) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file);
    } catch (IOException e) {
      throw new BadInputException(field + ": cannot read " + file + " (" + e.getMessage() + ")");
    }
    List<String> texts = new ArrayList<>();
    List<long[]> ids = new ArrayList<>();
    List<Map<String, Object>> rows = new ArrayList<>();
    ChatTemplate template = null;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).isBlank()) continue;
      String at = field + ": line " + (i + 1) + " of " + file;
      Map<String, Object> row;
      try {
        row = JSON.readValue(lines.get(i), new TypeReference<Map<String, Object>>() {});
      } catch (IOException e) {
        throw new BadInputException(at + " is not a JSON object; write one object per line");
      }
      String text;
      if (row.get("prompt") instanceof String p) {
        text = p;
        ids.add(Arrays.stream(tokenizer.encode(p)).asLongStream().toArray());
      } else if (row.get("messages") instanceof List<?> messages) {
        if (!(tokenizer instanceof HfTokenizer hf)) {
          throw new BadInputException(at + " has messages, which need a Hugging Face tokenizer with a chat template (model.pretrained)");
        }
        try {
          if (template == null) template = ChatTemplate.load(hf.file());
          text = template.render(messages, Map.of(), true).text();
          ids.add(Arrays.stream(hf.encode(text)).asLongStream().toArray()); // rendered once, with the generation prompt
        } catch (ChatTemplateException e) {
          throw new BadInputException(at + ": " + e.getMessage());
        }
      } else {
        throw new BadInputException(at + " has neither a prompt (text) nor messages (a list); give one of them");
      }
      if (ids.get(ids.size() - 1).length == 0) throw new BadInputException(at + " has an empty prompt");
      texts.add(text);
      rows.add(Map.copyOf(row));
    }
    if (rows.isEmpty()) throw new BadInputException(field + ": " + file + " holds no prompts");
    return new PromptSet(file.toString(), List.copyOf(texts), List.copyOf(ids), List.copyOf(rows));
  }
}
