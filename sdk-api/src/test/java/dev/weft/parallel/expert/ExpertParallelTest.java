package dev.weft.parallel.expert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.comm.DeviceMesh;
import dev.weft.comm.Distributed;
import dev.weft.comm.gloo.GlooBackend;
import dev.weft.launch.ThreadedRun;
import dev.weft.models.Layers;
import dev.weft.models.Parameters.Param;
import dev.weft.models.layers.DenseLayers;
import dev.weft.models.moe.MoeBlock;
import dev.weft.models.moe.MoeConfig;
import dev.weft.models.moe.MoeNames;
import dev.weft.models.moe.RouterLosses;
import dev.weft.util.Tensors;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;

/**
 * A MoE block whose 4 experts are split over ep=2 ranks (each rank routing its own tokens, dispatched and combined
 * by all-to-all with uneven counts) against the same block whole on one rank over both ranks' tokens: equal
 * outputs, input gradients and expert gradients (each expert's on the rank that holds it, from every rank's tokens),
 * the router's gradient summed over the ranks; every assignment counted (Σ = tokens × k), none dropped.
 */
class ExpertParallelTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final int H = 16, N = 24, E = 4, K = 2; // N tokens per rank
  private static final MoeConfig CFG = new MoeConfig(E, K, 8, true, 0, 1, Set.of(), 0, 0, MoeNames.MIXTRAL, false);

  record Out(double[] y, double[] dx, Map<String, double[]> grads, long[] counts) {}

  private static Tensor input(int rank) {
    return dev.weft.models.Init.normalFull(100 + rank, "x", 1.0, 2, N / 2, H); // its own generator: ranks are threads
  }

  private static Out run(Layers layers, Tensor x, Tensor g) {
    MoeBlock block = new MoeBlock(CFG, "model.layers.0.", layers, H, 0.3, 5);
    RouterLosses stats = new RouterLosses(E);
    Tensor xin = x.clone().requires_grad_(true);
    Tensor y = block.forward(xin, stats);
    y.mul(g).sum().backward();
    Map<String, double[]> grads = new LinkedHashMap<>();
    for (Param p : layers.parameters().list()) grads.put(p.name(), Tensors.toDoubles(p.tensor().grad()));
    return new Out(Tensors.toDoubles(y), Tensors.toDoubles(xin.grad()), grads, stats.counts());
  }

  @Test
  void expertParallelEqualsOneRank() {
    List<Out> ep = ThreadedRun.onRanks(2, TIMEOUT, id -> {
      try (Distributed dist = Distributed.start(id, new DeviceMesh(2, 1, 1), new GlooBackend(), TIMEOUT)) {
        Layers layers = new ExpertParallelLayers(new DenseLayers(9), dist.dp());
        return run(layers, input(id.rank()), input(10 + id.rank()));
      }
    });
    for (int r = 0; r < 2; r++) {
      Out one = run(new DenseLayers(9), input(r), input(10 + r)); // the whole block on this rank's tokens alone
      close(ep.get(r).y(), one.y(), "rank " + r + " output");
      close(ep.get(r).dx(), one.dx(), "rank " + r + " input gradient");
    }
    Tensor both = torch.cat(new org.bytedeco.pytorch.TensorVector(input(0), input(1)), 0);
    Tensor gBoth = torch.cat(new org.bytedeco.pytorch.TensorVector(input(10), input(11)), 0);
    Out whole = run(new DenseLayers(9), both, gBoth);
    long assigned = 0;
    for (int e = 0; e < E; e++) {
      int owner = e / (E / 2);
      for (String part : List.of("w1", "w3", "w2")) {
        String name = "model.layers.0.block_sparse_moe.experts." + e + "." + part + ".weight";
        assertThat(ep.get(1 - owner).grads()).doesNotContainKey(name);
        close(ep.get(owner).grads().get(name), whole.grads().get(name), name);
      }
      long c = ep.get(0).counts()[e] + ep.get(1).counts()[e];
      assertThat(c).as("expert %d", e).isEqualTo(whole.counts()[e]);
      assigned += c;
    }
    assertThat(assigned).isEqualTo(2L * N * K); // both ranks' tokens × k
    String router = "model.layers.0.block_sparse_moe.gate.weight";
    double[] sum = ep.get(0).grads().get(router).clone();
    for (int i = 0; i < sum.length; i++) sum[i] += ep.get(1).grads().get(router)[i];
    close(sum, whole.grads().get(router), "router");
  }

  private static void close(double[] a, double[] b, String what) {
    assertThat(a).as(what).hasSameSizeAs(b);
    double scale = 1e-12;
    for (double v : b) scale = Math.max(scale, Math.abs(v));
    for (int i = 0; i < a.length; i++) assertThat(Math.abs(a[i] - b[i]) / scale).as("%s[%d]", what, i).isLessThan(1e-5);
  }
}
