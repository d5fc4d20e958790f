package dev.weft.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.spec.SpecIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/** The files of a Hugging Face directory besides the weights: JSON written the Hub's way, tokenizer files copied. */
public final class HfFiles {
  public static final String GENERATION_CONFIG = "generation_config.json";

  /** What a fine-tuned model needs from its source to be used as it was: tokenizer, chat template, generation defaults. */
  public static final List<String> CARRIED = List.of("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
      GENERATION_CONFIG, "tokenizer.model", "vocab.json", "merges.txt", "vocab.txt", "added_tokens.json", "chat_template.jinja",
      "chat_template.json");

  private HfFiles() {}

  public static void writeJson(Path file, JsonNode json) throws IOException {
    Files.writeString(file, SpecIO.jsonMapper().writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n");
  }

  /** Copies every {@link #CARRIED} regular file {@code from} has into {@code to}; returns their names. */
  public static List<String> copyCarried(Path from, Path to) throws IOException {
    List<String> copied = new ArrayList<>();
    for (String name : CARRIED) {
      Path src = from.resolve(name);
      if (!Files.isRegularFile(src, java.nio.file.LinkOption.NOFOLLOW_LINKS)) continue;
      Files.copy(src, to.resolve(name), StandardCopyOption.REPLACE_EXISTING);
      copied.add(name);
    }
    return copied;
  }
}
