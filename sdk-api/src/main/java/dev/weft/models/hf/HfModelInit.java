package dev.weft.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.checkpoint.DType;
import dev.weft.models.Init;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
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
    ObjectNode config = config(like, "--like");
    config.put("torch_dtype", HfDtypes.torchName(dtype));
    Map<String, long[]> shapes = HfShapes.of(config, "--like");
    double std = config.path("initializer_range").asDouble(0.02);
    List<HfWeightsWriter.Entry> entries = new ArrayList<>();
    shapes.forEach((name, shape) -> entries.add(new HfWeightsWriter.Entry(name, dtype, shape)));
    HfWeightsWriter.Written w = HfWeightsWriter.write(out, entries, e -> initial(e, seed, std), maxShardBytes);
    HfFiles.writeJson(out.resolve(HfCheckpoint.CONFIG), config);
    HfFiles.writeJson(out.resolve(HfFiles.GENERATION_CONFIG), generationConfig(config));
    long params = HfShapes.parameters(shapes);
    log.info("wrote a random {} ({} parameters, {}) to {}", like, params, dtype, out);
    return new Result(out, like, params, w.tensors(), w.bytes(), w.files().size());
  }

  /** A tensor's initial value as transformers' _init_weights draws it: norms 1, biases 0, the rest N(0, std). */
  static Tensor initial(HfWeightsWriter.Entry e, long seed, double std) {
    Tensor t = e.name().endsWith("norm.weight") ? torch.ones(e.shape())
        : e.name().endsWith(".bias") ? torch.zeros(e.shape())
        : Init.normalFull(seed, e.name(), std, e.shape());
    return t.to(e.dtype().scalarType()).contiguous();
  }

  /** The few generation defaults a model directory carries: its bos and eos tokens. */
  static ObjectNode generationConfig(JsonNode config) {
    ObjectNode g = SpecIO.jsonMapper().createObjectNode();
    g.put("_from_model_config", true);
    if (config.has("bos_token_id")) g.set("bos_token_id", config.get("bos_token_id"));
    if (config.has("eos_token_id")) g.set("eos_token_id", config.get("eos_token_id"));
    if (config.has("transformers_version")) g.set("transformers_version", config.get("transformers_version"));
    return g;
  }
}
