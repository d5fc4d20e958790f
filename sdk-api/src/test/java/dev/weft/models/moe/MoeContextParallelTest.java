package dev.weft.models.moe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.train.RunResult;
import dev.weft.train.TensorParallelEquivalenceTest;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A MoE model under context parallelism with strong router losses (aux 1.0, z 0.1): each cp rank routes half of
 * every sequence, and the auxiliary loss of the halves is not the whole's, so the cp ranks pool their statistics
 * first (ContextRouterPool); cp2 alone and cp2 with pp2 then reproduce one rank within 1e-4 per step.
 */
class MoeContextParallelTest {
  @TempDir Path dir;

  @Test
  void cpPoolsTheRouterStatistics() {
    RunResult one = MoeTrainingEquivalenceTest.mixtral(1.0, 0.1).runDir(dir.resolve("one")).fit();
    RunResult cp2 = MoeTrainingEquivalenceTest.mixtral(1.0, 0.1).contextParallel(2).runDir(dir.resolve("cp2")).fit();
    TensorParallelEquivalenceTest.assertClose(cp2.losses(), one.losses(), 1e-4);
    RunResult cpPp = MoeTrainingEquivalenceTest.mixtral(1.0, 0.1).contextParallel(2).pipeline(2).runDir(dir.resolve("cp2pp2")).fit();
    TensorParallelEquivalenceTest.assertClose(cpPp.losses(), one.losses(), 1e-4);
    // expert parallelism beside cp: ep2 over dp2, each cp rank dispatching its part of the sequences
    RunResult epCp = MoeTrainingEquivalenceTest.mixtral(1.0, 0.1).contextParallel(2).dataParallel(2).expertParallel(2).microBatches(1)
        .runDir(dir.resolve("ep2cp2")).fit();
    TensorParallelEquivalenceTest.assertClose(epCp.losses(), one.losses(), 1e-4);
    // expert_load_E counts every cp rank's part of the sequences (and every stage's layers), as one rank does
    for (String run : List.of("cp2", "cp2pp2", "ep2cp2")) {
      MoeTrainingEquivalenceTest.assertLoadCounted(dir.resolve(run));
      assertThat(MoeTrainingEquivalenceTest.load(dir.resolve(run)).get(0)).as(run).isEqualTo(MoeTrainingEquivalenceTest.load(dir.resolve("one")).get(0));
    }
  }
}
