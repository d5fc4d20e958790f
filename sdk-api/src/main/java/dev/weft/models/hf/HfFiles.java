package dev.weft.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.spec.SpecIO;
import dev.weft.util.FileModes;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
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
    return copyCarried(from, to, name -> true);
  }

  /** As {@link #copyCarried(Path, Path)}, only the names {@code wanted} accepts. */
  public static List<String> copyCarried(Path from, Path to, java.util.function.Predicate<String> wanted) throws IOException {
    List<String> copied = new ArrayList<>();
    for (String name : CARRIED) {
      if (!wanted.test(name)) continue;
      Path src = from.resolve(name);
      if (!Files.isRegularFile(src, LinkOption.NOFOLLOW_LINKS)) continue;
      Path copy = to.resolve(name);
      Files.deleteIfExists(copy);
      Files.createFile(copy);
      FileModes.narrow(copy, FileModes.of(src)); // before any byte lands: never readable by more than the source
      try (InputStream in = Files.newInputStream(src, LinkOption.NOFOLLOW_LINKS); OutputStream out = Files.newOutputStream(copy)) {
        in.transferTo(out);
      }
      copied.add(name);
    }
    return copied;
  }
}
