package dev.weft.models.hf;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.checkpoint.DType;
import dev.weft.checkpoint.SafetensorsWriter;
import dev.weft.spec.SpecIO;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.bytedeco.pytorch.Tensor;

/**
 * Writes a Hugging Face directory's weights: the tensors in order, split into files of at most a
 * given size ({@link HfShards}), with {@code model.safetensors.index.json} when there is more than one.
 * Each tensor's bytes come from a function when its turn comes, so only one tensor is in memory.
 */
public final class HfWeightsWriter {
  /** One tensor to write: its Hugging Face name, the dtype to store, its shape. */
  public record Entry(String name, DType dtype, long[] shape) {
    public long bytes() {
      long n = dtype.bytes();
      for (long d : shape) n *= d;
      return n;
    }
  }

  /** The files written, the tensor count and the bytes of tensor data. */
  public record Written(List<Path> files, int tensors, long bytes) {}

  private HfWeightsWriter() {}

  /**
   * Writes {@code tensors} into {@code dir}; {@code produce} returns each one's contiguous CPU data in
   * its dtype (freed once written). Weights files of an earlier export in {@code dir} are removed first.
   */
  public static Written write(Path dir, List<Entry> tensors, Function<Entry, Tensor> produce, long maxShardBytes)
      throws IOException {
    Files.createDirectories(dir);
    removeOldWeights(dir);
    long[] bytes = tensors.stream().mapToLong(Entry::bytes).toArray();
    List<List<Integer>> files = HfShards.files(HfShards.plan(bytes, maxShardBytes));
    Map<String, String> weightMap = new TreeMap<>();
    Map<String, Entry> byName = new java.util.HashMap<>();
    for (Entry t : tensors) byName.put(t.name(), t);
    List<Path> written = new ArrayList<>();
    long total = 0;
    for (int f = 0; f < files.size(); f++) {
      String name = HfShards.fileName(f, files.size());
      List<SafetensorsWriter.Item> items = new ArrayList<>();
      for (int i : files.get(f)) {
        Entry t = tensors.get(i);
        items.add(new SafetensorsWriter.Item(t.name(), t.dtype(), t.shape(), null));
        weightMap.put(t.name(), name);
        total += bytes[i];
      }
      Path file = dir.resolve(name);
      SafetensorsWriter.write(file, items, it -> produce.apply(byName.get(it.name())), Map.of("format", "pt"));
      written.add(file);
    }
    if (files.size() > 1) {
      ObjectNode index = SpecIO.jsonMapper().createObjectNode();
      index.putObject("metadata").put("total_size", total);
      ObjectNode map = index.putObject("weight_map");
      weightMap.forEach(map::put);
      Files.writeString(dir.resolve(HfCheckpoint.INDEX), SpecIO.jsonMapper().writerWithDefaultPrettyPrinter().writeValueAsString(index) + "\n");
    }
    return new Written(written, tensors.size(), total);
  }

  /** {@code model.safetensors}, {@code model-*-of-*.safetensors} and the index: what a previous export left. */
  private static void removeOldWeights(Path dir) throws IOException {
    Files.deleteIfExists(dir.resolve(HfCheckpoint.INDEX));
    Files.deleteIfExists(dir.resolve(HfCheckpoint.WEIGHTS));
    try (DirectoryStream<Path> old = Files.newDirectoryStream(dir, "model-*-of-*.safetensors")) {
      for (Path p : old) Files.deleteIfExists(p);
    }
  }
}
