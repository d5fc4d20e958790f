package dev.weft.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.data.ShardIndex;
import dev.weft.spec.DataSpec;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.BoundedFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The tokenizer a trained model goes with, found through what its run records, and what an export carries of it: the
 * tokenizer files and a {@code generation_config.json} whose {@code eos_token_id} holds the tokenizer's
 * {@code eos_token} (a chat model's end of turn), so generate and eval need no {@code --tokenizer} on any export.
 */
public final class TokenizerFiles {
  public static final String TOKENIZER_JSON = "tokenizer.json";
  private static final long MAX_JSON_BYTES = 256L << 20; // the largest published tokenizer.json files are tens of MB

  private TokenizerFiles() {}

  /** Whether {@code dir} holds a Hugging Face tokenizer. */
  public static boolean holdsTokenizer(Path dir) { return dir != null && Files.isRegularFile(dir.resolve(TOKENIZER_JSON)); }

  /**
   * The tokenizer directory of a run: {@code model.pretrained}'s when it holds tokenizer.json, else the directory of the
   * tokenizer its token shards were prepared with (their index.json records it), when that still holds one.
   */
  public static Optional<Path> of(TrainingSpec spec) {
    if (spec.model().hasPretrained() && holdsTokenizer(Path.of(spec.model().pretrained()))) {
      return Optional.of(Path.of(spec.model().pretrained()));
    }
    for (DataSpec.Weighted w : spec.data().mix()) {
      Optional<Path> d = ofShards(w.source());
      if (d.isPresent()) return d;
    }
    return Optional.empty();
  }

  /** The tokenizer directory a shard directory's index.json names ({@code preference:DIR} included). */
  private static Optional<Path> ofShards(String source) {
    if (source == null || source.isBlank()) return Optional.empty();
    String location = source.startsWith("preference:") ? source.substring("preference:".length()) : source;
    try {
      Path dir = Path.of(location);
      if (!ShardIndex.isShardDirectory(dir)) return Optional.empty();
      String named = ShardIndex.read(dir).tokenizer();
      if (named == null || named.isBlank()) return Optional.empty();
      Path p = Path.of(named);
      Path tokDir = Files.isRegularFile(p) ? p.toAbsolutePath().getParent() : p;
      return holdsTokenizer(tokDir) ? Optional.of(tokDir) : Optional.empty();
    } catch (RuntimeException e) { // a source that is not a path, or an index that cannot be read: training names that
      return Optional.empty();
    }
  }

  /** The id of the tokenizer's {@code eos_token}; see {@link #specialId}. */
  public static OptionalLong eosId(Path tokenizerDir) { return specialId(tokenizerDir, "eos_token"); }

  /**
   * The id of a special token tokenizer_config.json names ({@code key}: {@code eos_token}, {@code bos_token}; a string or
   * {@code {"content": ...}}) in its tokenizer.json (an added token, else the model's vocabulary); empty when either says
   * nothing.
   */
  public static OptionalLong specialId(Path tokenizerDir, String key) {
    try {
      Path config = tokenizerDir.resolve("tokenizer_config.json");
      if (!Files.isRegularFile(config) || !holdsTokenizer(tokenizerDir)) return OptionalLong.empty();
      JsonNode token = readJson(config).path(key);
      String text = token.isTextual() ? token.asText() : token.path("content").asText("");
      if (text.isEmpty()) return OptionalLong.empty();
      JsonNode tok = readJson(tokenizerDir.resolve(TOKENIZER_JSON));
      for (JsonNode added : tok.path("added_tokens")) {
        if (text.equals(added.path("content").asText(null)) && added.path("id").isIntegralNumber()) return OptionalLong.of(added.path("id").asLong());
      }
      JsonNode id = tok.path("model").path("vocab").path(text);
      return id.isIntegralNumber() ? OptionalLong.of(id.asLong()) : OptionalLong.empty();
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty(); // an unreadable tokenizer adds no special id; loading it names what is wrong
    }
  }

  /** {@code config}'s eos_token_id (an id or a list) with the tokenizer's eos id added; empty when neither has one. */
  public static List<Long> eosIds(JsonNode config, Path tokenizerDir) {
    Set<Long> ids = new LinkedHashSet<>();
    JsonNode v = config == null ? null : config.get("eos_token_id");
    if (v != null && v.isIntegralNumber()) ids.add(v.asLong());
    if (v != null && v.isArray()) v.forEach(e -> { if (e.isIntegralNumber()) ids.add(e.asLong()); });
    if (tokenizerDir != null) eosId(tokenizerDir).ifPresent(ids::add);
    return new ArrayList<>(ids);
  }

  /**
   * Beside exported weights in {@code out}: the tokenizer files of {@code tokenizerDir} (null: none) that {@code out}
   * lacks, then a generation_config.json when none was carried — bos from {@code config}, eos from {@link #eosIds}.
   * Returns the names of the files written.
   */
  public static List<String> carry(Path tokenizerDir, Path out, JsonNode config) throws IOException {
    List<String> written = new ArrayList<>();
    if (tokenizerDir != null && Files.isDirectory(tokenizerDir) && !tokenizerDir.toAbsolutePath().normalize().equals(out.toAbsolutePath().normalize())) {
      for (String name : HfFiles.copyCarried(tokenizerDir, out, n -> !Files.exists(out.resolve(n)))) written.add(name);
    }
    if (!Files.exists(out.resolve(HfFiles.GENERATION_CONFIG))) {
      HfFiles.writeJson(out.resolve(HfFiles.GENERATION_CONFIG), generationConfig(config, tokenizerDir));
      written.add(HfFiles.GENERATION_CONFIG);
    }
    return written;
  }

  /** The few generation defaults a model directory carries: bos and eos ids (one id as a number, several as a list). */
  static ObjectNode generationConfig(JsonNode config, Path tokenizerDir) {
    ObjectNode g = SpecIO.jsonMapper().createObjectNode();
    g.put("_from_model_config", true);
    if (config != null && config.has("bos_token_id")) g.set("bos_token_id", config.get("bos_token_id"));
    List<Long> eos = eosIds(config, tokenizerDir);
    if (eos.size() == 1) g.put("eos_token_id", eos.get(0));
    else if (!eos.isEmpty()) {
      ArrayNode a = g.putArray("eos_token_id");
      eos.forEach(a::add);
    }
    if (config != null && config.has("transformers_version")) g.set("transformers_version", config.get("transformers_version"));
    return g;
  }

  private static JsonNode readJson(Path file) throws IOException {
    return SpecIO.jsonMapper().readTree(BoundedFiles.read(file, MAX_JSON_BYTES));
  }
}
