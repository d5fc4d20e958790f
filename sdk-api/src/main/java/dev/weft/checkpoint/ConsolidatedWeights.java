package dev.weft.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.util.Tensors;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;

/**
 * One unsharded safetensors file of a checkpoint's model weights ({@code model/*} tensors, the prefix
 * dropped), with {@code model.config.json} beside it holding the spec's model section; and the way
 * back: {@link #load} returns name → tensor, to start training from these weights.
 */
public final class ConsolidatedWeights {
  public static final String MODEL_PREFIX = "model/";

  /** What {@link #write} produced. */
  public record Result(Path weights, Path config, int tensors, long bytes) {}

  private ConsolidatedWeights() {}

  /** The checkpoint's model tensors, whole, by parameter name (the {@code model/} prefix dropped), sorted by name. */
  public static Map<String, Tensor> modelTensors(Checkpoint c) {
    List<String> names = c.manifest().tensors().keySet().stream().filter(n -> n.startsWith(MODEL_PREFIX)).sorted().toList();
    if (names.isEmpty()) throw new CheckpointException(c.dir() + " holds no " + MODEL_PREFIX + "* tensors to consolidate");
    List<StateEntry> wanted = new ArrayList<>();
    Map<String, Tensor> out = new LinkedHashMap<>();
    for (String n : names) {
      Manifest.GlobalTensor t = c.manifest().tensors().get(n);
      Tensor whole = Tensors.empty(DType.fromSafetensors(t.dtype()).scalarType(), t.shape());
      wanted.add(new StateEntry(n, whole, TensorSlice.whole(t.shape()), true));
      out.put(n.substring(MODEL_PREFIX.length()), whole);
    }
    c.load(wanted);
    return out;
  }

  public static Result write(Checkpoint c, Path out) throws IOException {
    List<SafetensorsWriter.Item> items = items(modelTensors(c));
    Path parent = out.toAbsolutePath().getParent();
    java.nio.file.Files.createDirectories(parent);
    SafetensorsWriter.Written w = SafetensorsWriter.write(out, items,
        Map.of("format", "pt", "weft.step", Long.toString(c.step())));
    Path config = parent.resolve("model.config.json");
    JsonNode spec = c.manifest().spec();
    JsonNode model = spec == null ? null : spec.get("model");
    FileSync.writeAtomically(config, ManifestIO.json().writeValueAsString(model == null ? ManifestIO.json().createObjectNode() : model));
    return new Result(out, config, items.size(), w.bytes());
  }

  /** Safetensors items for whole contiguous tensors, in the map's order. */
  public static List<SafetensorsWriter.Item> items(Map<String, Tensor> tensors) {
    List<SafetensorsWriter.Item> items = new ArrayList<>();
    tensors.forEach((name, t) -> {
      Tensor c = t.contiguous();
      items.add(new SafetensorsWriter.Item(name, DType.of(c.scalar_type()), c.sizes().vec().get(), c));
    });
    return items;
  }

  /** Every tensor of a safetensors file (consolidated or not), checked like any checkpoint file, by name. */
  public static Map<String, Tensor> load(Path file) {
    SafetensorsFile f = SafetensorsFile.open(file);
    Map<String, Tensor> out = new LinkedHashMap<>();
    for (SafetensorsFile.Entry e : f.entries().values()) {
      Tensor t = Tensors.empty(e.dtype().scalarType(), e.shape());
      f.read(e, 0, e.numel(), t.data_ptr());
      out.put(e.name(), t);
    }
    return out;
  }
}
