package dev.weft.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.checkpoint.DType;
import dev.weft.checkpoint.SafetensorsFile;
import dev.weft.spec.SpecException;
import dev.weft.util.BoundedFiles;
import dev.weft.util.Tensors;
import dev.weft.util.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.bytedeco.pytorch.BoolOptional;
import org.bytedeco.pytorch.LongOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;

/**
 * A Hugging Face model directory: {@code config.json} and the weights, either one
 * {@code model.safetensors} or shards listed in {@code model.safetensors.index.json}. Tensors are
 * read one at a time, on demand, through the checkpoint package's checked safetensors reader.
 */
public final class HfCheckpoint {
  public static final String CONFIG = "config.json";
  public static final String WEIGHTS = "model.safetensors";
  public static final String INDEX = "model.safetensors.index.json";
  private static final ObjectMapper JSON = Json.STRICT;
  /** config.json and the index are kilobytes; larger ones are refused before reading. */
  static final long MAX_JSON_BYTES = 64L << 20;

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
    if (!Files.exists(file)) { // anything else there (a FIFO, a device) is refused by readJson without opening it
      throw new SpecException(field, dir + " has no " + CONFIG + "; give a Hugging Face model directory");
    }
    JsonNode c = readJson(file, field);
    if (c == null || !c.isObject()) throw new SpecException(field, file + " is not a JSON object");
    return c;
  }

  /** The JSON file {@code name} of the model directory, or null when there is none. */
  public static JsonNode optionalJson(Path dir, String name, String field) {
    Path file = dir.resolve(name);
    return Files.exists(file) ? readJson(file, field) : null;
  }

  /** A JSON file of the model directory: a regular file, bounded, strictly parsed. */
  private static JsonNode readJson(Path file, String field) {
    try {
      return JSON.readTree(BoundedFiles.read(file, MAX_JSON_BYTES));
    } catch (BoundedFiles.Refused e) {
      throw new SpecException(field, file + " " + e.getMessage());
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
      JsonNode map = readJson(index, field).path("weight_map");
      if (!map.isObject()) throw new SpecException(field, index + " has no weight_map object");
      Map<String, SafetensorsFile> opened = new LinkedHashMap<>();
      map.fields().forEachRemaining(e -> {
        if (!e.getValue().isTextual()) throw new SpecException(field, index + " maps " + e.getKey() + " to " + e.getValue() + ", not a file name");
        Path shard = shardPath(dir, index, e.getValue().asText(), field);
        SafetensorsFile f = opened.computeIfAbsent(shard.getFileName().toString(), s -> SafetensorsFile.open(shard));
        if (!f.entries().containsKey(e.getKey())) throw new SpecException(field, index + " places " + e.getKey() + " in " + shard + ", which has no such tensor");
        fileOf.put(e.getKey(), f);
      });
    } else if (Files.isRegularFile(dir.resolve(WEIGHTS))) {
      SafetensorsFile f = SafetensorsFile.open(dir.resolve(WEIGHTS));
      for (String name : f.entries().keySet()) fileOf.put(name, f);
    } else {
      throw new SpecException(field, dir + " has neither " + WEIGHTS + " nor " + INDEX);
    }
    return new HfCheckpoint(dir, config, fileOf);
  }

  /** A shard the index names, strictly inside the model directory. */
  private static Path shardPath(Path dir, Path index, String name, String field) {
    try {
      return BoundedFiles.inside(dir, name);
    } catch (BoundedFiles.Refused e) {
      throw new SpecException(field, index + " " + e.getMessage());
    }
  }

  public Path dir() { return dir; }
  public JsonNode config() { return config; }
  public Set<String> names() { return fileOf.keySet(); }
  public boolean has(String name) { return fileOf.containsKey(name); }

  /** The dtype most of the weights' bytes are stored in (its 16-bit matmul weights in a bf16 or fp16 file). */
  public DType storedDtype() {
    Map<DType, Long> bytes = new java.util.EnumMap<>(DType.class);
    for (Map.Entry<String, SafetensorsFile> n : fileOf.entrySet()) {
      SafetensorsFile.Entry e = n.getValue().entry(n.getKey());
      bytes.merge(e.dtype(), e.end() - e.begin(), Long::sum);
    }
    return bytes.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(DType.F32);
  }

  /** The dtype the file's header gives tensor {@code name}. */
  public DType dtype(String name) { return fileOf.get(name).entry(name).dtype(); }

  /** The shape the file's header gives tensor {@code name}. */
  public long[] shape(String name) { return fileOf.get(name).entry(name).shape(); }

  /**
   * The whole tensor {@code name}, in the dtype the file stores: a read-only, copy-on-write memory map of its
   * bytes (nothing is read until the tensor is used, and the pages go when the tensor does), or a copy read
   * into memory where the file places the tensor at an offset its dtype cannot be viewed at.
   */
  public Tensor read(String name) {
    SafetensorsFile f = fileOf.get(name);
    if (f == null) throw new SpecException("model.pretrained", dir + " has no tensor '" + name + "'; was it saved for this architecture?");
    SafetensorsFile.Entry e = f.entry(name);
    long start = f.dataStart() + e.begin(), bytes = e.end() - e.begin();
    if (e.numel() > 0 && start % e.dtype().bytes() == 0) return mapped(f.file(), start, bytes, e);
    Tensor t = Tensors.empty(e.dtype().scalarType(), e.shape());
    f.read(e, 0, e.numel(), t.data_ptr());
    return t;
  }

  /** Bytes [start, start + bytes) of {@code file} mapped privately (libtorch's file mapping) and viewed as {@code e}. */
  private static Tensor mapped(Path file, long start, long bytes, SafetensorsFile.Entry e) {
    Tensor all = torch.from_file(file.toString(), new BoolOptional(false), new LongOptional(start + bytes),
        new TensorOptions(torch.ScalarType.Byte));
    return all.narrow(0, start, bytes).view(e.dtype().scalarType()).view(e.shape());
  }
}
