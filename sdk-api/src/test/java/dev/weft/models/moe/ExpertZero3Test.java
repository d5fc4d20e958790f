package dev.weft.models.moe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.train.RunResult;
import dev.weft.train.TensorParallelEquivalenceTest;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Expert parallelism under ZeRO-3: dense parameters live as shards over dp and the routed experts as shards over
 * their edp group (the ranks holding the same experts), each gathered over its own group around its layer. ep2 alone
 * and ep2 inside dp4 reproduce the one-rank run of the same global batch within 1e-4 per step; an ep2 ZeRO-3
 * checkpoint resumes at ep=1 ZeRO-1 on the uninterrupted run's losses. Under HSDP (ZeRO-1 and 3 sharded in pairs of
 * dp4, ep4) the dense parameters replicate across the pairs while the experts are reduced over their edp group only.
 */
class ExpertZero3Test {
  @TempDir Path dir;

  @Test
  void zero3ShardsExpertsOverTheirReplicas() {
    RunResult one = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).runDir(dir.resolve("one")).fit();
    Path ck = dir.resolve("ck");
    RunResult ep2 = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).dataParallel(2).expertParallel(2).microBatches(1).zero(3)
        .zeroBucketMiB(0.01).checkpointEvery(2).checkpointDir(ck).runDir(dir.resolve("ep2")).fit();
    TensorParallelEquivalenceTest.assertClose(ep2.losses(), one.losses(), 1e-4);
    assertThat(ep2.summary().replicasConsistent()).isTrue();
    RunResult resumed = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).dataParallel(2).microBatches(1).zero(1)
        .resume(ck.resolve("step-000002").toString()).runDir(dir.resolve("resumed")).fit();
    TensorParallelEquivalenceTest.assertClose(resumed.losses(), ep2.losses().subList(2, 3), 1e-4);

    RunResult four = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).microBatches(4).runDir(dir.resolve("four")).fit();
    RunResult ep2dp4 = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).dataParallel(4).expertParallel(2).microBatches(1).zero(3)
        .zeroBucketMiB(0.01).runDir(dir.resolve("ep2dp4")).fit();
    TensorParallelEquivalenceTest.assertClose(ep2dp4.losses(), four.losses(), 1e-4);
    // HSDP: dense shards in pairs, replicated across them; the experts (ep4: one each, no edp replica) are not replicated
    for (int zero : new int[] {1, 3}) {
      RunResult hsdp = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).dataParallel(4).expertParallel(4).microBatches(1).zero(zero)
          .zeroShardSize(2).zeroBucketMiB(0.01).runDir(dir.resolve("hsdp" + zero)).fit();
      TensorParallelEquivalenceTest.assertClose(hsdp.losses(), four.losses(), 1e-4);
      assertThat(hsdp.summary().replicasConsistent()).isTrue();
    }
  }
}
