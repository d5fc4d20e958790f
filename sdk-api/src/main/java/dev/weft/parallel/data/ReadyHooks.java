package dev.weft.parallel.data;

import dev.weft.models.Parameters.Param;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.FunctionPostHook;
import org.bytedeco.pytorch.Node;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;

/**
 * Post-hooks on the parameters' AccumulateGrad nodes: when the last gradient of a bucket arrives, its reduction
 * launches while backward goes on. Owns the hooks and nodes (libtorch keeps raw pointers to them).
 */
final class ReadyHooks {
  private final List<Object> keepAlive = new ArrayList<>();
  private final Node[] nodes;
  private boolean enabled = true;
  private int micro;

  /** AccumulateGrad nodes record the parameter's shape when created: find them while parameters are whole. */
  ReadyHooks(List<Param> params) {
    nodes = new Node[params.size()];
    for (int i = 0; i < params.size(); i++) {
      Tensor p = params.get(i).tensor();
      nodes[i] = p.expand_as(p).grad_fn().next_edge(0).function();
    }
  }

  /** Parameter {@code param}'s gradient counts towards {@code s}. */
  void add(int param, BucketState s) {
    FunctionPostHook h = new FunctionPostHook() {
      @Override
      public TensorVector apply(TensorVector outputs, TensorVector inputs) {
        if (enabled && s.oneReady()) s.launch(micro);
        return outputs;
      }
    };
    nodes[param].add_post_hook(h);
    keepAlive.add(nodes[param]);
    keepAlive.add(h);
  }

  /** The backward of micro-batch {@code micro} follows; whether full buckets reduce during it. */
  void before(int micro, boolean enabled) {
    this.micro = micro;
    this.enabled = enabled;
  }

  void clear() { keepAlive.clear(); }
}
