package dev.weft.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.checkpoint.SafetensorsFile;
import dev.weft.spec.SpecException;
import dev.weft.util.Tensors;
import dev.weft.util.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.bytedeco.pytorch.Tensor;

/**
 * A Hugging Face model directory: {@code config.json} and the weights, either one
 * {@code model.safetensors} or shards listed in {@code model.safetensors.index.json}. Tensors are
 * read one at a time, on demand, through the checkpoint package's checked safetensors reader.
 */
public final class HfCheckpoint {
  public static final String CONFIG = "config.json";
  public static final String WEIGHTS = "model.safetensors";
  public static final String INDEX = "model.safetensors.index.json";
  private static final ObjectMapper JSON = Json.PLAIN;

  private final Path dir;
  private final JsonNode config;
  private final Map<String, SafetensorsFile> fileOf;

  private HfCheckpoint(Path dir, JsonNode config, Map<String, SafetensorsFile> fileOf) {
    this.dir = dir;
    this.config = config;
    this.fileOf = fileOf;
  }

  /** Reads only config.json (sizes), for validation. */
  public static JsonNode config(Path dir, String field) {
    Path file = dir.resolve(CONFIG);
    if (!Files.isRegularFile(file)) {
      throw new SpecException(field, dir + " has no " + CONFIG + "; give a Hugging Face model directory");
    }
    try {
      JsonNode c = JSON.readTree(file.toFile());
      if (c == null || !c.isObject()) throw new SpecException(field, file + " is not a JSON object");
      return c;
    } catch (IOException e) {
      throw new SpecException(field, file + " cannot be read as JSON: " + e.getMessage());
    }
  }

  /** Opens the directory: config.json and the headers of every weights file. */
  public static HfCheckpoint open(Path dir, String field) {
    JsonNode config = config(dir, field);
    Map<String, SafetensorsFile> fileOf = new LinkedHashMap<>();
    Path index = dir.resolve(INDEX);
    if (Files.isRegularFile(index)) {
      JsonNode map;
      try {
        map = JSON.readTree(index.toFile()).path("weight_map");
      } catch (IOException e) {
        throw new SpecException(field, index + " cannot be read as JSON: " + e.getMessage());
      }
      if (!map.isObject()) throw new SpecException(field, index + " has no weight_map object");
      Map<String, SafetensorsFile> opened = new LinkedHashMap<>();
      map.fields().forEachRemaining(e -> {
        String shard = e.getValue().asText();
        if (shard.contains("/") || shard.contains("\\")) throw new SpecException(field, index + " names a shard outside the directory: " + shard);
        fileOf.put(e.getKey(), opened.computeIfAbsent(shard, s -> SafetensorsFile.open(dir.resolve(s))));
      });
    } else if (Files.isRegularFile(dir.resolve(WEIGHTS))) {
      SafetensorsFile f = SafetensorsFile.open(dir.resolve(WEIGHTS));
      for (String name : f.entries().keySet()) fileOf.put(name, f);
    } else {
      throw new SpecException(field, dir + " has neither " + WEIGHTS + " nor " + INDEX);
    }
    return new HfCheckpoint(dir, config, fileOf);
  }

  public Path dir() { return dir; }
  public JsonNode config() { return config; }
  public Set<String> names() { return fileOf.keySet(); }
  public boolean has(String name) { return fileOf.containsKey(name); }

  /** The whole tensor {@code name}, in the dtype the file stores. */
  public Tensor read(String name) {
    SafetensorsFile f = fileOf.get(name);
    if (f == null) throw new SpecException("model.pretrained", dir + " has no tensor '" + name + "'; was it saved for this architecture?");
    SafetensorsFile.Entry e = f.entry(name);
    Tensor t = Tensors.empty(e.dtype().scalarType(), e.shape());
    f.read(e, 0, e.numel(), t.data_ptr());
    return t;
  }
}
