package dev.weft.parallel.tensor;

import dev.weft.testing.GroupRanks;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.data.ArithmeticCorpus;
import dev.weft.data.Batches;
import dev.weft.models.gpt.Gpt;
import dev.weft.models.gpt.GptConfig;
import java.time.Duration;
import java.util.List;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every column-parallel layer of a GPT computes its weight gradient while its input-gradient
 * collective is in flight (the hook order {@link ColumnLinear} relies on holds), on every pass, also
 * when the forward ran in a PointerScope that closed before backward, and the wait on the group is counted.
 */
class ColumnLinearOverlapTest {
  private static final Duration T = Duration.ofSeconds(60);

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void everyColumnLayerOverlapsItsWeightGradient(boolean sp) {
    GptConfig cfg = new GptConfig(2, 32, 4, 4, 64, 16);
    int passes = 2;
    List<long[]> got = GroupRanks.run(2, "tp", T, c -> {
      TpOps ops = new TpOps(c);
      Gpt model = new Gpt(cfg, new TensorParallelLayers(5, ops, sp));
      for (int i = 0; i < passes; i++) {
        try (PointerScope step = new PointerScope()) {
          Batches.Batch b = Batches.make(new ArithmeticCorpus(5), i * 2L, 2, cfg.seqLen());
          Tensor loss;
          // as a pipeline action does: the forward's own scope closes before backward runs
          try (PointerScope forward = new PointerScope()) {
            loss = model.loss(b.tokens(), b.targets());
            loss.retainReference();
          }
          loss.backward();
          loss.releaseReference();
        }
      }
      ops.dropPendingHooks();
      return new long[] {ops.overlappedWeightGradients(), ops.takeWaitNanos()};
    });
    long columnLayers = 2L * cfg.layers() + 1; // QKV and MLP up per layer, and the LM head
    for (long[] r : got) {
      assertThat(r[0]).as("weight gradients computed under their layer's collective").isEqualTo(passes * columnLayers);
      assertThat(r[1]).as("nanoseconds waited on the tp group").isPositive();
    }
  }

  /**
   * A forward outside any PointerScope (as a test or a user's own loop runs it) leaves its hooks reachable only through
   * the holds: collections between the forward and the backward must not free them. Before the holds kept every hook
   * (not only scoped ones) this backward failed with a bare NullPointerException from Tensor.backward.
   */
  @org.junit.jupiter.api.Test
  void hooksOfAnUnscopedForwardSurviveCollectionsBeforeTheBackward() {
    GptConfig cfg = new GptConfig(2, 32, 4, 4, 64, 16);
    List<Double> losses = GroupRanks.run(2, "tp", T, c -> {
      TpOps ops = new TpOps(c);
      Gpt model = new Gpt(cfg, new TensorParallelLayers(5, ops, false));
      Batches.Batch b = Batches.make(new ArithmeticCorpus(5), 0, 2, cfg.seqLen());
      Tensor loss = model.loss(b.tokens(), b.targets());
      for (int i = 0; i < 5; i++) {
        System.gc();
        try {
          Thread.sleep(50); // JavaCPP frees collected objects on its deallocator thread
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }
      loss.backward();
      double l = loss.item_double();
      ops.dropPendingHooks();
      return l;
    });
    assertThat(losses.get(0)).isEqualTo(losses.get(1));
  }
}
