package dev.weft.models.moe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.models.decoder.Decoder;
import dev.weft.spec.SpecException;
import dev.weft.train.ModelBuilder;
import dev.weft.train.RunResult;
import dev.weft.train.TensorParallelEquivalenceTest;
import dev.weft.util.Tensors;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Arrays;
import java.util.Random;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tiny Mixtral trained 3 steps (router aux loss and z-loss on, so they are in every step's loss) reproduces its
 * one-rank run within 1e-4 per step under dp2, dp2 with ZeRO-3 and tp2 (experts split like dense MLPs); pp2 with the router losses off
 * reproduces its one-rank run too (with them on: ExpertPipelineTrainingTest). Every token reaches its k experts: the experts' counts
 * sum to tokens × k per MoE layer, and metrics.jsonl's per-expert load counts every assignment of each step.
 */
class MoeTrainingEquivalenceTest {
  private static final int SEQ = 16;
  @TempDir Path dir;

  static Trainer mixtral(double aux, double z) {
    return Trainer.model("mixtral").set("model.config.hidden_size", 32).set("model.config.intermediate_size", 32)
        .set("model.config.num_hidden_layers", 2).set("model.config.num_attention_heads", 4).set("model.config.num_key_value_heads", 2)
        .set("model.config.num_local_experts", 4).set("model.config.num_experts_per_tok", 2)
        .set("model.config.router_aux_loss_coef", aux).set("model.config.router_z_loss_coef", z)
        .seqLen(SEQ).globalBatch(8).microBatches(2).steps(3).warmup(0).lr(3e-3).seed(7);
  }

  @Test
  void layoutsReproduceOneRankWithTheRouterLossesInTheLoss() {
    RunResult one = mixtral(0.05, 0.01).runDir(dir.resolve("one")).fit();
    RunResult dp = mixtral(0.05, 0.01).dataParallel(2).microBatches(1).runDir(dir.resolve("dp")).fit();
    RunResult tp = mixtral(0.05, 0.01).tensorParallel(2).runDir(dir.resolve("tp")).fit();
    TensorParallelEquivalenceTest.assertClose(dp.losses(), one.losses(), 1e-4);
    for (String run : List.of("one", "dp")) assertLoadCounted(dir.resolve(run));
    TensorParallelEquivalenceTest.assertClose(tp.losses(), one.losses(), 1e-4);
    RunResult zero3 = mixtral(0.05, 0.01).dataParallel(2).microBatches(1).zero(3).runDir(dir.resolve("zero3")).fit();
    TensorParallelEquivalenceTest.assertClose(zero3.losses(), one.losses(), 1e-4);
    RunResult without = mixtral(0, 0).runDir(dir.resolve("plain")).fit();
    assertThat(Math.abs(without.losses().get(0) - one.losses().get(0))).as("the router losses count").isGreaterThan(1e-4);
    RunResult pp = mixtral(0, 0).pipeline(2).runDir(dir.resolve("pp")).fit();
    TensorParallelEquivalenceTest.assertClose(pp.losses(), without.losses(), 1e-4);
    assertLoadCounted(dir.resolve("pp")); // each stage's layers, summed over the stages
    assertThat(load(dir.resolve("pp")).get(0)).isEqualTo(load(dir.resolve("plain")).get(0));
    assertThatThrownBy(() -> mixtral(0.05, 0).pipeline(2).schedule("interleaved-1f1b").toSpec()).isInstanceOf(SpecException.class)
        .hasMessageContaining("router_aux_loss_coef"); // pooled over stages only in 1f1b and gpipe (ExpertPipelineTrainingTest)
    assertThatThrownBy(() -> mixtral(0.05, 0).tensorParallel(2).sequenceParallel().toSpec()).isInstanceOf(SpecException.class)
        .hasMessageContaining("parallel.sequenceParallel");
  }

  /** metrics.jsonl's expert_load_E per step: every assignment of the global batch (8 × 16 tokens × k 2 × 2 layers). */
  static void assertLoadCounted(Path run) {
    try {
      List<String> lines = Files.readAllLines(run.resolve("metrics.jsonl"));
      assertThat(lines).hasSize(3);
      for (String line : lines) {
        JsonNode m = new ObjectMapper().readTree(line);
        long sum = 0;
        for (int e = 0; e < 4; e++) sum += m.get("expert_load_" + e).asLong();
        assertThat(sum).as(run + ": " + line).isEqualTo(8L * SEQ * 2 * 2);
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** expert_load_E of each step of a run's metrics.jsonl. */
  static List<List<Long>> load(Path run) {
    try {
      List<List<Long>> steps = new java.util.ArrayList<>();
      for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) {
        JsonNode m = new ObjectMapper().readTree(line);
        List<Long> counts = new java.util.ArrayList<>();
        for (int e = 0; e < 4; e++) counts.add(m.get("expert_load_" + e).asLong());
        steps.add(counts);
      }
      return steps;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void everyTokenReachesItsExperts() {
    Decoder m = (Decoder) ModelBuilder.whole(mixtral(0.05, 0).toSpec());
    long[] ids = new Random(1).longs(3 * SEQ, 0, 256).toArray();
    try (NoGradGuard ng = new NoGradGuard()) {
      Tensor in = Tensors.ofLongs(ids).view(3, SEQ);
      m.lossSum(in, in);
    }
    long[] load = m.expertLoad();
    assertThat(load).hasSize(4);
    assertThat(Arrays.stream(load).sum()).isEqualTo(3L * SEQ * 2 * 2); // tokens × k × MoE layers
    assertThat(Arrays.stream(load).filter(c -> c > 0).count()).as("routing spreads").isGreaterThan(1);
  }
}
