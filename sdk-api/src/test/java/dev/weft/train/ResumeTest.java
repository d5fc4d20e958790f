package dev.weft.train;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.checkpoint.Checkpoint;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.spec.SpecException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Stop at step 10, continue in the same or another layout: steps 11–20 are those of the run that never stopped. */
class ResumeTest {
  @TempDir Path dir;

  private static Trainer small() {
    return Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(8).steps(20).warmup(2).lr(3e-3).seed(31);
  }

  private List<Double> tail(RunResult r) { return r.losses().subList(r.losses().size() - 10, r.losses().size()); }

  private void check(UnaryOperator<Trainer> a, UnaryOperator<Trainer> b, double rel, String name) {
    Path ck = dir.resolve(name + "-ck");
    RunResult full = a.apply(small()).checkpointEvery(10).checkpointDir(ck).runDir(dir.resolve(name + "-a")).fit();
    RunResult resumed = b.apply(small()).resume(ck.resolve("step-000010").toString()).runDir(dir.resolve(name + "-b")).fit();
    assertThat(resumed.losses()).hasSize(10);
    assertClose(resumed.losses(), tail(full), rel);
  }

  @Test
  void sameLayoutIsBitwiseIdentical() {
    Path ck = dir.resolve("same");
    RunResult full = small().dataParallel(2).zero(1).checkpointEvery(10).checkpointDir(ck).runDir(dir.resolve("s-a")).fit();
    RunResult from10 = small().dataParallel(2).zero(1).resume(ck.resolve("step-000010").toString()).runDir(dir.resolve("s-c")).fit();
    assertThat(from10.losses()).isEqualTo(tail(full));
    // "latest" is step 20, the end of the run: there is nothing left to train, and the error says how to go on
    assertThatThrownBy(() -> small().dataParallel(2).zero(1).checkpointDir(ck).resume("latest").runDir(dir.resolve("s-b")).fit())
        .isInstanceOf(SpecException.class).hasMessageContaining("raise train.steps");
    RunResult longer = small().steps(25).dataParallel(2).zero(1).checkpointDir(ck).resume("latest").runDir(dir.resolve("s-d")).fit();
    assertThat(longer.losses()).hasSize(5);
  }

  @Test
  void dataParallelToTensorParallel() {
    check(t -> t.dataParallel(2), t -> t.tensorParallel(2), 1e-4, "dp2-tp2");
  }

  @Test
  void pipelineToDataParallel() {
    check(t -> t.pipeline(2).microBatches(2), t -> t.dataParallel(2), 1e-4, "pp2-dp2");
  }

  @Test
  void zero3OnTwoRanksToZero1OnOne() {
    check(t -> t.dataParallel(2).zero(3), t -> t.zero(1), 1e-4, "z3-z1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"bf16"})
  void fp32ToLowPrecision(String dtype) {
    check(t -> t, t -> t.precision(dtype), 2e-2, "prec-" + dtype);
  }

  @Test
  void consolidatedWeightsStartARunWithTheSameLoss() throws Exception {
    // a corpus of exactly one sample: every step reads the same tokens, so losses compare across step numbers
    Path text = dir.resolve("one-sample.txt");
    java.nio.file.Files.writeString(text, "12+34=46;56+7=63");
    UnaryOperator<Trainer> same = t -> t.data(text.toString()).seqLen(15);
    Path ck = dir.resolve("cons");
    same.apply(small()).dataParallel(2).tensorParallel(2).steps(10).checkpointEvery(10).checkpointDir(ck).runDir(dir.resolve("c-a")).fit();
    Path file = dir.resolve("model.safetensors");
    ConsolidatedWeights.write(Checkpoint.open(ck.resolve("step-000010")), file);
    RunResult fromFile = same.apply(small()).steps(1).initWeights(file).runDir(dir.resolve("c-b")).fit();
    RunResult fromCkpt = same.apply(small()).steps(11).resume(ck.resolve("step-000010").toString()).runDir(dir.resolve("c-c")).fit();
    assertThat(Math.abs(fromFile.losses().get(0) - fromCkpt.losses().get(0)) / fromCkpt.losses().get(0)).isLessThan(1e-5);
  }
}
