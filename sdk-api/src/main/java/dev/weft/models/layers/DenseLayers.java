package dev.weft.models.layers;

import static org.bytedeco.pytorch.global.torch.cross_entropy;
import static org.bytedeco.pytorch.global.torch.layer_norm;
import static org.bytedeco.pytorch.global.torch.linear;
import static org.bytedeco.pytorch.global.torch.ones;
import static org.bytedeco.pytorch.global.torch.zeros;

import dev.weft.models.Init;
import dev.weft.models.Layers;
import dev.weft.models.Parameters;
import dev.weft.models.Parameters.Param;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptional;

/** Unsplit layers: one rank holds every weight. */
public final class DenseLayers implements Layers {
  private final long seed;
  private final Parameters params = new Parameters();

  public DenseLayers(long seed) { this.seed = seed; }

  /** Registers a whole (unsplit) parameter. */
  public static Tensor whole(Parameters params, String name, Tensor value) {
    Tensor t = value.contiguous().requires_grad_(true);
    return params.add(new Param(name, t, t.sizes().vec().get(), -1, 0, 1));
  }

  @Override
  public Linear columns(java.util.List<String> names, long in, long out, double std) {
    if (names.size() == 1) return dense(names.get(0), in, out, std);
    org.bytedeco.pytorch.TensorVector ws = new org.bytedeco.pytorch.TensorVector(), bs = new org.bytedeco.pytorch.TensorVector();
    for (String n : names) {
      ws.push_back(whole(params, n + ".weight", Init.normalFull(seed, n + ".weight", std, out, in)));
      bs.push_back(whole(params, n + ".bias", zeros(out)));
    }
    return x -> linear(x, org.bytedeco.pytorch.global.torch.cat(ws), new TensorOptional(org.bytedeco.pytorch.global.torch.cat(bs)));
  }

  @Override
  public Linear row(String name, long in, long out, double std) { return dense(name, in, out, std); }

  private Linear dense(String name, long in, long out, double std) {
    Tensor w = whole(params, name + ".weight", Init.normalFull(seed, name + ".weight", std, out, in));
    Tensor b = whole(params, name + ".bias", zeros(out));
    return x -> linear(x, w, new TensorOptional(b));
  }

  @Override
  public Embedding embedding(String name, long vocab, long dim, double std) {
    return positionEmbedding(name, vocab, dim, std);
  }

  @Override
  public Embedding positionEmbedding(String name, long rows, long dim, double std) {
    Tensor w = whole(params, name + ".weight", Init.normalFull(seed, name + ".weight", std, rows, dim));
    return ids -> org.bytedeco.pytorch.global.torch.embedding(w, ids);
  }

  @Override
  public Linear layerNorm(String name, long dim) { return layerNorm(params, name, dim); }

  /** LayerNorm is replicated under every split, so split layer sets share this one. */
  public static Linear layerNorm(Parameters params, String name, long dim) {
    Tensor g = whole(params, name + ".weight", ones(dim));
    Tensor b = whole(params, name + ".bias", zeros(dim));
    long[] shape = {dim};
    return x -> layer_norm(x, shape, new TensorOptional(g), new TensorOptional(b), 1e-5, false);
  }

  @Override
  public LmHead lmHead(String name, long dim, long vocab, double std) {
    Tensor w = whole(params, name + ".weight", Init.normalFull(seed, name + ".weight", std, vocab, dim));
    return (h, targets) -> cross_entropy(linear(h, w).view(-1, vocab), targets.reshape(-1));
  }

  @Override public int splits() { return 1; }
  @Override public Parameters parameters() { return params; }
}
