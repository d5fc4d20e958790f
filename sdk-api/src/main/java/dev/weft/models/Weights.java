package dev.weft.models;

import dev.weft.models.Parameters.Param;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/** Copies of trained parameters as each rank holds them, and the whole tensors put back together from every rank's copies. */
public final class Weights {
  /** A copy of one rank's slice of a parameter, with where it sits in the whole tensor. */
  public record Slice(String name, Tensor data, int shardDim, int shardIndex, int shardCount) {}

  private Weights() {}

  /** Detached copies of this rank's parameters (call while they are whole, e.g. after a ZeRO-3 gather). */
  public static List<Slice> snapshot(Parameters params) {
    List<Slice> out = new ArrayList<>();
    try (NoGradGuard ng = new NoGradGuard()) {
      for (Param p : params.list()) {
        Tensor held = dev.weft.util.Tensors.onHost(p.tensor().detach());
        // a frozen weight (a LoRA base) never changes: shared, not copied, so the end of a run does not hold it twice
        out.add(new Slice(p.name(), params.isFrozen(p.name()) ? held : held.clone(), p.isSharded() ? p.shardDim() : -1, p.shardIndex(),
            p.isSharded() ? p.shardCount() : 1));
      }
    }
    return out;
  }

  /** Whole tensors by name from the slices of all ranks (replicas are the same; tensor-parallel parts are joined). */
  public static Map<String, Tensor> assemble(Collection<List<Slice>> ranks) {
    Map<String, TreeMap<Integer, Slice>> parts = new LinkedHashMap<>();
    for (List<Slice> rank : ranks) {
      for (Slice s : rank) parts.computeIfAbsent(s.name(), n -> new TreeMap<>()).putIfAbsent(s.shardIndex(), s);
    }
    Map<String, Tensor> out = new LinkedHashMap<>();
    parts.forEach((name, byIndex) -> {
      Slice first = byIndex.firstEntry().getValue();
      if (first.shardCount() == 1) {
        out.put(name, first.data());
        return;
      }
      if (byIndex.size() != first.shardCount()) {
        throw new IllegalStateException(name + ": " + byIndex.size() + " of " + first.shardCount() + " slices came back");
      }
      TensorVector v = new TensorVector();
      byIndex.values().forEach(s -> v.push_back(s.data()));
      out.put(name, torch.cat(v, first.shardDim()));
    });
    return out;
  }
}
