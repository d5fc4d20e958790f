package dev.weft.parallel.data;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.comm.HybridGroups;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecException;
import dev.weft.train.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HSDP (ZeRO-3, and 1, sharded within groups of 2, replicated across 2 groups, four threaded ranks) trains like
 * plain dp4 ZeRO-0, and its checkpoints load into dp4 ZeRO-0 and back.
 */
class HsdpEquivalenceTest {
  @TempDir Path dir;

  private static Trainer small() {
    return Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(8).steps(6).warmup(2).lr(3e-3).seed(23).dataParallel(4).checkpointEvery(3);
  }

  private static Trainer hsdp() { return small().zero(3).zeroShardSize(2).zeroBucketMiB(0.02); }

  @Test
  void shard2Replicate2MatchesDp4ZeroZeroAndCheckpointsCrossLayouts() throws Exception {
    RunResult ref = small().checkpointDir(dir.resolve("ck0")).runDir(dir.resolve("z0")).fit();
    RunResult h = hsdp().checkpointDir(dir.resolve("ckh")).runDir(dir.resolve("hsdp")).fit();
    assertClose(h.losses(), ref.losses(), 1e-4);
    assertThat(h.summary().replicasConsistent()).isTrue();
    // ZeRO-3 over a shard group of 2: half of everything per rank
    assertThat((double) h.summary().memory().optimizerState()).isLessThanOrEqualTo(ref.summary().memory().optimizerState() * 0.55);
    assertThat((double) h.summary().memory().parameters()).isLessThanOrEqualTo(ref.summary().memory().parameters() * 0.55);
    // the replicate all-reduce moves each gradient shard (half the padded parameters, fp32) once per step
    double paramMib = 4.0 * h.summary().parameters() / (1 << 20);
    for (String line : Files.readAllLines(dir.resolve("hsdp").resolve("metrics.jsonl"))) {
      JsonNode z = MetricsJson.MAPPER.readTree(line).get("zero");
      assertThat(z.get("replicated_mib").asDouble()).isBetween(paramMib / 2, paramMib / 2 + 0.01);
      assertThat(z.get("reduced_mib").asDouble()).isBetween(paramMib, paramMib + 0.02);
    }

    for (int zero : new int[] {1}) { // stage 1 all-reduces its owned slice across replicas (2 takes stage 3's path)
      RunResult z = small().zero(zero).zeroShardSize(2).checkpointEvery(0).runDir(dir.resolve("hsdp-z" + zero)).fit();
      assertClose(z.losses(), ref.losses(), 1e-4);
    }

    RunResult hsdpToZ0 = small().resume(dir.resolve("ckh").resolve("step-000003").toString()).runDir(dir.resolve("h-z0")).fit();
    assertClose(hsdpToZ0.losses(), ref.losses().subList(3, 6), 1e-4);
    RunResult z0ToHsdp = hsdp().resume(dir.resolve("ck0").resolve("step-000003").toString()).runDir(dir.resolve("z0-h")).fit();
    assertClose(z0ToHsdp.losses(), ref.losses().subList(3, 6), 1e-4);
  }

  @Test
  void groupsAreConsecutiveBlocksAndTheirColumns() {
    List<Integer> dp = List.of(0, 2, 4, 6, 8, 10); // a dp group with tp = 2
    assertThat(HybridGroups.shardRanks(dp, 4, 3)).containsExactly(6, 8, 10);
    assertThat(HybridGroups.replicateRanks(dp, 4, 3)).containsExactly(2, 8);
    assertThat(HybridGroups.shardRanks(dp, 0, 2)).containsExactly(0, 2);
    assertThat(HybridGroups.replicateRanks(dp, 0, 2)).containsExactly(0, 4, 8);
  }

  @Test
  void sizesThatDoNotSplitDpAreRefusedByName() {
    for (Trainer t : List.of(small().zero(3).zeroShardSize(3), small().zero(3).zeroShardSize(4), small().zeroShardSize(2))) {
      assertThatThrownBy(() -> t.runDir(dir.resolve("bad")).fit()).isInstanceOf(SpecException.class)
          .hasMessageContaining("parallel.zeroShardSize");
    }
  }
}
