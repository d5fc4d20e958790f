package dev.weft.models.moe;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.spec.SpecException;
import dev.weft.train.RunResult;
import dev.weft.train.TensorParallelEquivalenceTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Expert parallelism with pipeline stages and with recomputation: the tiny Mixtral (router aux and z losses on) with its
 * experts split over ep=2 inside dp2, split into pp=2 stages (1f1b, the router losses pooled over both stages' routers),
 * in an interleaved pipeline (router losses off), and, on one stage, recomputing every activation (the all-to-alls run again, the same exchange), reproduces the one-rank
 * run of the same four micro-batches within 1e-4 per step (two steps: the second shows the first update), loss and gradient norm.
 */
class ExpertPipelineTrainingTest {
  @TempDir Path dir;

  @Test
  void expertParallelComposesWithPipelineAndRecompute() {
    RunResult one = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).steps(2).microBatches(4).runDir(dir.resolve("one")).fit();
    RunResult pp = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).steps(2).pipeline(2).dataParallel(2).expertParallel(2).microBatches(2)
        .runDir(dir.resolve("pp")).fit();
    TensorParallelEquivalenceTest.assertClose(pp.losses(), one.losses(), 1e-4);
    TensorParallelEquivalenceTest.assertClose(column(dir.resolve("pp"), "grad_norm"), column(dir.resolve("one"), "grad_norm"), 1e-4);
    RunResult rc = MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).steps(2).dataParallel(2).expertParallel(2).microBatches(2).recompute()
        .runDir(dir.resolve("rc")).fit();
    TensorParallelEquivalenceTest.assertClose(rc.losses(), one.losses(), 1e-4);
    TensorParallelEquivalenceTest.assertClose(column(dir.resolve("rc"), "grad_norm"), column(dir.resolve("one"), "grad_norm"), 1e-4);
    assertThatThrownBy(() -> MoeTrainingEquivalenceTest.mixtral(0.05, 0.01).steps(2).pipeline(2).recompute().toSpec())
        .isInstanceOf(SpecException.class).hasMessageContaining("train.recompute");
  }

  @Test
  void expertParallelRunsInAnInterleavedPipeline() { // router losses off: they pool over stages only in 1f1b and gpipe
    RunResult one = MoeTrainingEquivalenceTest.mixtral(0, 0).set("model.config.num_hidden_layers", 4).microBatches(4).steps(2)
        .runDir(dir.resolve("one")).fit();
    RunResult interleaved = MoeTrainingEquivalenceTest.mixtral(0, 0).set("model.config.num_hidden_layers", 4).steps(2).pipeline(2)
        .schedule("interleaved-1f1b").dataParallel(2).expertParallel(2).microBatches(2).runDir(dir.resolve("il")).fit();
    TensorParallelEquivalenceTest.assertClose(interleaved.losses(), one.losses(), 1e-4);
    // zero-bubble: B runs the graph once (the all-to-alls' backward with it), W only the linears' dW
    RunResult zb = MoeTrainingEquivalenceTest.mixtral(0, 0).set("model.config.num_hidden_layers", 4).steps(2).pipeline(2)
        .schedule("zb-h1").dataParallel(2).expertParallel(2).microBatches(2).runDir(dir.resolve("zb")).fit();
    TensorParallelEquivalenceTest.assertClose(zb.losses(), one.losses(), 1e-4);
  }

  private static List<Double> column(Path run, String key) {
    try {
      List<Double> out = new ArrayList<>();
      for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) out.add(new ObjectMapper().readTree(line).get(key).asDouble());
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
