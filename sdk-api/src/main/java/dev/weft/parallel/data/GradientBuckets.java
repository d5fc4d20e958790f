package dev.weft.parallel.data;

import static org.bytedeco.pytorch.global.torch.zeros;

import dev.weft.comm.Communicator;
import dev.weft.comm.PendingOp;
import dev.weft.comm.ReduceOp;
import dev.weft.models.Parameters.Param;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.FunctionPostHook;
import org.bytedeco.pytorch.Node;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;

/**
 * Data-parallel gradient averaging with buckets that are all-reduced as they fill. Parameters are
 * bucketed in reverse registration order (the order backward produces their gradients); a hook on
 * each parameter's AccumulateGrad node counts ready gradients, and a full bucket is packed into its
 * flat buffer and its all-reduce launched at once, while backward goes on with earlier layers.
 * {@link #finish()} waits for the buckets and writes the averages back.
 *
 * <p>Owns its flat buffers, hooks and AccumulateGrad nodes: the hooks must stay strongly reachable
 * while registered, and holding the nodes keeps libtorch from replacing them between steps.
 */
public final class GradientBuckets implements AutoCloseable {
  private final Communicator dp;
  private final List<Bucket> buckets = new ArrayList<>();
  private final List<Object> keepAlive = new ArrayList<>();
  private volatile boolean syncEnabled = true;

  private final class Bucket {
    final List<Param> params = new ArrayList<>();
    final List<Long> offsets = new ArrayList<>();
    Tensor flat;
    int ready;
    PendingOp pending;

    void onReady() {
      if (!syncEnabled) return;
      if (++ready == params.size()) launch();
    }

    void launch() {
      try (NoGradGuard ng = new NoGradGuard()) {
        for (int i = 0; i < params.size(); i++) {
          Tensor p = params.get(i).tensor();
          Tensor g = p.grad();
          Tensor dst = flat.narrow(0, offsets.get(i), p.numel());
          if (g.defined()) dst.copy_(g.reshape(-1));
          else dst.zero_();
        }
      }
      pending = dp.allReduceAsync(flat, ReduceOp.SUM);
    }

    void finish() {
      if (pending == null) launch(); // some gradient never arrived (unused parameter): reduce what there is
      pending.await();
      pending = null;
      ready = 0;
      Scalar inv = new Scalar(1.0 / dp.size());
      try (NoGradGuard ng = new NoGradGuard()) {
        for (int i = 0; i < params.size(); i++) {
          Tensor p = params.get(i).tensor();
          Tensor src = flat.narrow(0, offsets.get(i), p.numel()).view_as(p).mul(inv);
          Tensor g = p.grad();
          if (g.defined()) g.copy_(src);
          else p.mutable_grad().put(src.clone());
        }
      }
    }
  }

  /**
   * Must be called outside any PointerScope: the buffers and hooks live as long as this object.
   *
   * @param bucketBytes target size of one bucket's fp32 buffer
   */
  public GradientBuckets(List<Param> params, Communicator dp, long bucketBytes) {
    this.dp = dp;
    Bucket current = new Bucket();
    long filled = 0;
    for (int i = params.size() - 1; i >= 0; i--) {
      Param p = params.get(i);
      current.offsets.add(filled);
      current.params.add(p);
      filled += p.numel();
      if (filled * 4 >= bucketBytes || i == 0) {
        current.flat = zeros(filled);
        buckets.add(current);
        current = new Bucket();
        filled = 0;
      }
    }
    if (dp.size() > 1) {
      for (Bucket b : buckets) for (Param p : b.params) hook(p.tensor(), b);
    }
  }

  private void hook(Tensor param, Bucket bucket) {
    Node acc = param.expand_as(param).grad_fn().next_edge(0).function();
    FunctionPostHook h = new FunctionPostHook() {
      @Override
      public TensorVector apply(TensorVector outputs, TensorVector inputs) {
        bucket.onReady();
        return outputs;
      }
    };
    acc.add_post_hook(h);
    keepAlive.add(acc);
    keepAlive.add(h);
  }

  /** Off during the accumulation micro-batches of a step, on for the last (like DDP's no_sync). */
  public void setSyncEnabled(boolean on) { this.syncEnabled = on; }

  /** Waits for every bucket and replaces each gradient by its average over the data-parallel group. */
  public void finish() {
    if (dp.size() == 1) return;
    for (Bucket b : buckets) b.finish();
  }

  public int bucketCount() { return buckets.size(); }

  @Override
  public void close() {
    for (Bucket b : buckets) if (b.flat != null) b.flat.close();
    keepAlive.clear();
  }
}
