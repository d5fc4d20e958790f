package dev.weft.models;

import static org.bytedeco.pytorch.global.torch.silu;

import dev.weft.util.Tensors;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptional;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * Every expert on this rank, each a column (gate, up) and a row (down) layer of the given
 * {@link Layers}, so tensor parallelism splits an expert's intermediate features as a dense MLP's.
 * Assignments are sorted by expert, each expert runs on its contiguous slice (empty where no token
 * chose it: its gradient then exists and is zero, so every rank's reduction sees every parameter),
 * and the weighted outputs are added back to their tokens.
 */
public final class LocalExperts implements Experts {
  private final List<Layers.Linear> gateUp = new ArrayList<>();
  private final List<Layers.Linear> down = new ArrayList<>();
  private long[] counts = new long[0];

  /** Experts {@code first .. first + count - 1} of {@code prefix}; parts = gate, up, down names. */
  public LocalExperts(Layers layers, String prefix, List<String> parts, int first, int count, long in, long hidden, double std) {
    for (int e = first; e < first + count; e++) {
      gateUp.add(layers.columns(List.of(Experts.name(prefix, e, parts.get(0)), Experts.name(prefix, e, parts.get(1))), in,
          new long[] {hidden, hidden}, std, false));
      down.add(layers.row(Experts.name(prefix, e, parts.get(2)), hidden, in, std, false));
    }
  }

  public int size() { return gateUp.size(); }

  @Override
  public Tensor forward(Tensor x, Tensor index, Tensor weight) {
    long k = index.size(1);
    Tensor flat = index.reshape(-1);
    Tensor order = torch.argsort(flat, true, 0, false); // stable: a token's assignments keep their order
    counts = Tensors.toLongs(torch.bincount(flat, new TensorOptional(), size()));
    Tensor token = order.floor_divide(new Scalar(k));
    Tensor y = run(x.index_select(0, token), counts).mul(weight.reshape(-1).index_select(0, order).unsqueeze(1));
    return torch.zeros_like(x).index_add(0, token, y);
  }

  /** rows [Σcounts, H] sorted by expert → each expert's output on its slice, in the same order. */
  public Tensor run(Tensor rows, long[] perExpert) {
    try (TensorVector ys = new TensorVector()) {
      long at = 0;
      for (int e = 0; e < size(); e++) {
        Tensor gu = gateUp.get(e).forward(rows.narrow(0, at, perExpert[e]).unsqueeze(0));
        long f = gu.size(2) / 2;
        ys.push_back(down.get(e).forward(silu(gu.narrow(2, 0, f)).mul(gu.narrow(2, f, f))).squeeze(0));
        at += perExpert[e];
      }
      return torch.cat(ys, 0);
    }
  }

  @Override public long[] lastCounts() { return counts.clone(); }
}
