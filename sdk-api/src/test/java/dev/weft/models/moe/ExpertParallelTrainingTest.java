package dev.weft.models.moe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.metrics.StepMetrics;
import dev.weft.spec.SpecException;
import dev.weft.train.StepListener;
import dev.weft.train.RunResult;
import dev.weft.train.TensorParallelEquivalenceTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Expert parallelism in training: a tiny Mixtral (4 experts, top-2, router aux and z losses on) trained with its
 * experts split over ep=2 ranks reproduces the ep=1 run of the same global batch (one rank, the same micro-batches)
 * within 1e-4 per step (and so does the gradient norm, which Adam's updates would not show), alone (ep2 = dp2), with
 * tp2, with ZeRO-2, and inside dp4 with ZeRO-1 (two edp groups of 2); each expert's token count per step, summed over
 * ranks, equals the ep=1 count (dropless); an ep2 ZeRO-2 checkpoint resumes at ep=1 ZeRO-1 (experts saved under their
 * global index, optimizer moments resharded) on the uninterrupted run's losses; LoRA over frozen experts split over ep
 * reproduces its one-rank run. The step's load reaches the listener
 * (a worker's feeds the Prometheus gauge).
 */
class ExpertParallelTrainingTest {
  @TempDir Path dir;

  @Test
  void expertParallelReproducesOneRank() {
    RunResult one = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).runDir(dir.resolve("one")).fit();
    double[][] gauge = new double[2][]; // what a rank hands its listener (a worker's: the Prometheus gauge)
    StepListener loads = new StepListener() {
      @Override public void onStep(StepMetrics m, long total) {}
      @Override public void onExpertLoad(int rank, double[] load) { gauge[rank] = load; }
    };
    RunResult ep2 = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).dataParallel(2).expertParallel(2).microBatches(1)
        .onStep(loads).runDir(dir.resolve("ep2")).fit();
    TensorParallelEquivalenceTest.assertClose(ep2.losses(), one.losses(), 1e-4);
    assertThat(ep2.summary().replicasConsistent()).isTrue();
    assertThat(ep2.summary().parameters()).isEqualTo(one.summary().parameters());
    assertThat(ep2.summary().mesh()).containsEntry("ep", 2).containsEntry("dp", 2);
    MoeTrainingEquivalenceTest.assertLoadCounted(dir.resolve("ep2"));
    assertThat(MoeTrainingEquivalenceTest.load(dir.resolve("ep2"))).isEqualTo(MoeTrainingEquivalenceTest.load(dir.resolve("one")));
    List<Long> last = MoeTrainingEquivalenceTest.load(dir.resolve("ep2")).get(2);
    assertThat(Arrays.stream(gauge[0]).mapToLong(v -> (long) v).boxed().toList()).isEqualTo(last); // fit() hands rank 0's on
    // Adam hides a constant factor in the gradients; the norm shows it (the experts' mean over edp × ep)
    TensorParallelEquivalenceTest.assertClose(column(dir.resolve("ep2"), "grad_norm"), column(dir.resolve("one"), "grad_norm"), 1e-4);

    RunResult tp2 = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).dataParallel(2).expertParallel(2).tensorParallel(2).microBatches(1)
        .runDir(dir.resolve("tp2")).fit();
    TensorParallelEquivalenceTest.assertClose(tp2.losses(), one.losses(), 1e-4); // each expert split over tp as well

    RunResult four = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).microBatches(4).runDir(dir.resolve("four")).fit();
    RunResult ep2dp4 = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).dataParallel(4).expertParallel(2).microBatches(1).zero(1)
        .runDir(dir.resolve("ep2dp4")).fit();
    TensorParallelEquivalenceTest.assertClose(ep2dp4.losses(), four.losses(), 1e-4);
    assertThat(ep2dp4.summary().replicasConsistent()).isTrue();
    assertThat(MoeTrainingEquivalenceTest.load(dir.resolve("ep2dp4"))).isEqualTo(MoeTrainingEquivalenceTest.load(dir.resolve("four")));
    TensorParallelEquivalenceTest.assertClose(column(dir.resolve("ep2dp4"), "grad_norm"), column(dir.resolve("four"), "grad_norm"), 1e-4);
  }

  @Test
  void anExpertParallelCheckpointResumesAtOneExpertRank() {
    Path ck = dir.resolve("ck");
    RunResult one = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).runDir(dir.resolve("one")).fit();
    RunResult full = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).dataParallel(2).expertParallel(2).microBatches(1).zero(2)
        .checkpointEvery(2).checkpointDir(ck).runDir(dir.resolve("a")).fit();
    TensorParallelEquivalenceTest.assertClose(full.losses(), one.losses(), 1e-4); // ZeRO-2: the experts reduce-scattered over edp
    RunResult resumed = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).dataParallel(2).microBatches(1).zero(1)
        .resume(ck.resolve("step-000002").toString()).runDir(dir.resolve("b")).fit();
    assertThat(resumed.losses()).hasSize(1);
    TensorParallelEquivalenceTest.assertClose(resumed.losses(), full.losses().subList(2, 3), 1e-4);
    // LoRA on the attention over frozen experts split over ep
    RunResult lora = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).lora(4, 8).set("train.lora.targets", List.of("q_proj", "v_proj"))
        .runDir(dir.resolve("lora1")).fit();
    RunResult loraEp = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).lora(4, 8).set("train.lora.targets", List.of("q_proj", "v_proj"))
        .dataParallel(2).expertParallel(2).microBatches(1).zero(1).runDir(dir.resolve("lora2")).fit();
    TensorParallelEquivalenceTest.assertClose(loraEp.losses(), lora.losses(), 1e-4);
    assertThatThrownBy(() -> MoeTrainingEquivalenceTest.mixtral(0, 0).dataParallel(4).microBatches(1).expertParallel(3).toSpec())
        .isInstanceOf(SpecException.class).hasMessageContaining("parallel.ep");
    assertThatThrownBy(() -> MoeTrainingEquivalenceTest.mixtral(0, 0).set("model.config.num_local_experts", 6)
        .dataParallel(4).expertParallel(4).toSpec()).isInstanceOf(SpecException.class).hasMessageContaining("6 experts");
  }

  private static List<Double> column(Path run, String key) {
    return lines(run).stream().map(m -> m.get(key).asDouble()).toList();
  }

  private static List<JsonNode> lines(Path run) {
    try {
      List<JsonNode> out = new ArrayList<>();
      for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) out.add(new ObjectMapper().readTree(line));
      return out;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
