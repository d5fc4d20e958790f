package dev.weft.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.checkpoint.DType;
import dev.weft.models.Init;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import dev.weft.tokenizer.HfTokenizer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A randomly initialised Hugging Face directory shaped like a published model, without downloading it:
 * that model's config.json values (kept as resources, {@code like/NAME.json}), tensors named and
 * shaped by {@link HfShapes}, drawn N(0, initializer_range) (norms 1, biases 0) one at a time from a
 * seeded generator per tensor, and streamed to sharded safetensors.
 */
public final class HfModelInit {
  private static final Logger log = LoggerFactory.getLogger(HfModelInit.class);
  private static final String PRESETS = "/dev/weft/models/hf/like/";

  /** What was written. */
  public record Result(Path dir, String like, long parameters, int tensors, long bytes, int files) {}

  private HfModelInit() {}

  /** The published models Weft knows the config.json of. */
  public static List<String> presets() {
    try (InputStream in = HfModelInit.class.getResourceAsStream(PRESETS + "index.txt")) {
      return Arrays.stream(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")).filter(s -> !s.isBlank()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The published config.json of {@code like}; a SpecException naming {@code field} when Weft does not know it. */
  public static ObjectNode config(String like, String field) {
    if (!presets().contains(like)) throw new SpecException(field, "'" + like + "' is not a model Weft knows; use one of " + presets());
    try (InputStream in = HfModelInit.class.getResourceAsStream(PRESETS + like + ".json")) {
      return (ObjectNode) SpecIO.jsonMapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes the directory: config.json (with {@code torch_dtype} = {@code dtype}), generation_config.json and the weights. */
  public static Result write(String like, Path out, DType dtype, long seed, long maxShardBytes) throws IOException {
    return write(like, List.of(), null, out, dtype, seed, maxShardBytes);
  }

  /**
   * As {@link #write(String, Path, DType, long, long)}, with {@code sets} (KEY=VALUE, {@link ConfigOverrides}) applied
   * to the published config.json and, when {@code tokenizer} (a directory or its tokenizer.json) is not null, its files
   * copied in and its bos/eos ids made the model's. Everything is checked before anything is written.
   */
  public static Result write(String like, List<String> sets, Path tokenizer, Path out, DType dtype, long seed, long maxShardBytes)
      throws IOException {
    ObjectNode config = config(like, sets, tokenizer);
    config.put("torch_dtype", HfDtypes.torchName(dtype));
    Map<String, long[]> shapes = HfShapes.of(config, "--like");
    double std = config.path("initializer_range").asDouble(0.02);
    List<HfWeightsWriter.Entry> entries = new ArrayList<>();
    shapes.forEach((name, shape) -> entries.add(new HfWeightsWriter.Entry(name, dtype, shape)));
    HfWeightsWriter.Written w = HfWeightsWriter.write(out, entries, e -> initial(e, seed, std), maxShardBytes);
    HfFiles.writeJson(out.resolve(HfCheckpoint.CONFIG), config);
    Path tokDir = tokenizer == null ? null : tokenizerDir(tokenizer);
    if (tokDir != null) HfFiles.copyCarried(tokDir, out, name -> !name.equals(HfFiles.GENERATION_CONFIG)); // the model's own is written below
    HfFiles.writeJson(out.resolve(HfFiles.GENERATION_CONFIG), TokenizerFiles.generationConfig(config, tokDir));
    long params = HfShapes.parameters(shapes);
    log.info("wrote a random {} ({} parameters, {}) to {}", like, params, dtype, out);
    return new Result(out, like, params, w.tensors(), w.bytes(), w.files().size());
  }

  /**
   * The config.json {@link #write} writes: {@code like}'s, with {@code sets} applied and, with a tokenizer, its bos/eos ids
   * (an id it does not name dropped when outside the vocabulary); a bad key, value or tokenizer refused in one line.
   */
  public static ObjectNode config(String like, List<String> sets, Path tokenizer) {
    ObjectNode config = ConfigOverrides.apply(config(like, "--like"), sets, "--set");
    if (tokenizer != null) {
      Path dir = tokenizerDir(tokenizer);
      long vocab;
      try (HfTokenizer t = HfTokenizer.open(dir.resolve(TokenizerFiles.TOKENIZER_JSON))) {
        vocab = t.vocabSize();
      }
      long size = config.path("vocab_size").asLong();
      if (vocab > size) {
        throw new SpecException("--tokenizer", dir + " has " + vocab + " tokens, more than vocab_size=" + size + "; add --set vocab_size=" + vocab);
      }
      for (String key : List.of("bos", "eos")) {
        var id = TokenizerFiles.specialId(dir, key + "_token");
        if (id.isPresent()) config.put(key + "_token_id", id.getAsLong());
        else if (config.path(key + "_token_id").asLong(-1) >= size) config.remove(key + "_token_id");
      }
    }
    ConfigOverrides.requireIds(config, "--set");
    return config;
  }

  /** {@code --tokenizer}: a directory holding tokenizer.json, or that file. */
  private static Path tokenizerDir(Path tokenizer) {
    Path dir = java.nio.file.Files.isRegularFile(tokenizer) ? tokenizer.toAbsolutePath().getParent() : tokenizer;
    if (!TokenizerFiles.holdsTokenizer(dir)) {
      throw new SpecException("--tokenizer", tokenizer + " holds no tokenizer.json; give a Hugging Face tokenizer's directory");
    }
    return dir;
  }

  /** A tensor's initial value as transformers' _init_weights draws it: norms 1, biases 0, the rest N(0, std). */
  static Tensor initial(HfWeightsWriter.Entry e, long seed, double std) {
    Tensor t = e.name().endsWith("norm.weight") ? torch.ones(e.shape())
        : e.name().endsWith(".bias") ? torch.zeros(e.shape())
        : Init.normalFull(seed, e.name(), std, e.shape());
    return t.to(e.dtype().scalarType()).contiguous();
  }
}
