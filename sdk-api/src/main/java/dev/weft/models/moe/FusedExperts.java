package dev.weft.models.moe;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * transformers 5's fused expert layout ↔ the Hub's per-expert tensors (the decoder's parameter names).
 * Fused, a layer's experts are {@code LAYER.mlp.experts.gate_up_proj} [E, 2·I, H] (gate rows, then up rows)
 * and {@code LAYER.mlp.experts.down_proj} [E, H, I], and Mixtral's {@code block_sparse_moe} module is
 * named {@code mlp}. Checkpoints are read in either layout and exported in the one they came in.
 */
public final class FusedExperts {
  private static final Pattern EXPERT = Pattern.compile("(.*\\.)(?:block_sparse_moe|mlp)\\.experts\\.(\\d+)\\.(\\w+)\\.weight");

  private FusedExperts() {}

  /** Part {@code part} (0 gate, 1 up, 2 down) of expert {@code expert}, held by the fused tensor {@code fused}. */
  record Ref(String fused, int expert, int part) {}

  /** Whether a checkpoint with these tensor names has the fused layout. */
  public static boolean in(Collection<String> names) {
    return names.stream().anyMatch(n -> n.endsWith(".experts.gate_up_proj"));
  }

  /** The fused tensor holding per-expert parameter {@code name}, or null for any other parameter. */
  static Ref ref(String name, MoeNames n) {
    Matcher m = EXPERT.matcher(name);
    if (!m.matches() || !n.parts().contains(m.group(3))) return null;
    int part = n.parts().indexOf(m.group(3));
    return new Ref(m.group(1) + "mlp.experts." + (part == 2 ? "down_proj" : "gate_up_proj"), Integer.parseInt(m.group(2)), part);
  }

  /** A non-expert name in the fused layout (Mixtral's block module is called mlp there). */
  static String rename(String name) { return name.replace(".block_sparse_moe.", ".mlp."); }

  /** Parameter {@code name} from a fused checkpoint ({@code read}: the checkpoint's tensor by name). */
  public static Tensor read(String name, MoeNames n, Function<String, Tensor> read) {
    Ref r = ref(name, n);
    if (r == null) return read.apply(rename(name));
    Tensor expert = read.apply(r.fused()).select(0, r.expert());
    if (r.part() == 2) return expert.contiguous();
    long half = expert.size(0) / 2;
    return expert.narrow(0, r.part() * half, half).contiguous();
  }

  /** The fused layout's names and shapes for a model's per-expert ones (for the tensor check). */
  public static Map<String, long[]> shapes(Map<String, long[]> perExpert, MoeNames n) {
    Map<String, long[]> out = new LinkedHashMap<>();
    Map<String, Integer> experts = new LinkedHashMap<>();
    perExpert.forEach((name, shape) -> {
      Ref r = ref(name, n);
      if (r == null) out.put(rename(name), shape);
      else experts.merge(r.fused(), r.expert() + 1, Math::max);
    });
    perExpert.forEach((name, shape) -> {
      Ref r = ref(name, n);
      if (r != null && r.expert() == 0 && r.part() != 1) {
        long rows = r.part() == 0 ? 2 * shape[0] : shape[0];
        out.put(r.fused(), new long[] {experts.get(r.fused()), rows, shape[1]});
      }
    });
    return out;
  }

  /** Whole per-expert tensors → the fused layout, in the model's order (each fused tensor where its expert 0 was). */
  public static Map<String, Tensor> fuse(Map<String, Tensor> perExpert, MoeNames n) {
    Map<String, List<Tensor>[]> groups = new LinkedHashMap<>();
    Map<String, Tensor> out = new LinkedHashMap<>();
    perExpert.forEach((name, t) -> {
      Ref r = ref(name, n);
      if (r == null) {
        out.put(rename(name), t);
        return;
      }
      out.putIfAbsent(r.fused(), null);
      List<Tensor>[] parts = groups.computeIfAbsent(r.fused(), k -> newParts());
      List<Tensor> list = parts[r.part() == 1 ? 1 : 0];
      while (list.size() <= r.expert()) list.add(null);
      list.set(r.expert(), t);
    });
    groups.forEach((fused, parts) -> out.put(fused, stack(parts)));
    return out;
  }

  @SuppressWarnings("unchecked")
  private static List<Tensor>[] newParts() { return new List[] {new ArrayList<Tensor>(), new ArrayList<Tensor>()}; }

  /** [E, rows, cols]: each expert's gate and up rows concatenated (gate_up_proj), or its down weight. */
  private static Tensor stack(List<Tensor>[] parts) {
    try (TensorVector experts = new TensorVector()) {
      for (int e = 0; e < parts[0].size(); e++) {
        if (parts[1].isEmpty()) {
          experts.push_back(parts[0].get(e));
        } else {
          try (TensorVector gu = new TensorVector(parts[0].get(e), parts[1].get(e))) {
            experts.push_back(torch.cat(gu, 0));
          }
        }
      }
      return torch.stack(experts, 0);
    }
  }
}
