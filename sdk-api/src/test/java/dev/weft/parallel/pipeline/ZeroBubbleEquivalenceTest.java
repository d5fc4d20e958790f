package dev.weft.parallel.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.plan.SpecCheck;
import dev.weft.spec.SpecException;
import dev.weft.train.RunResult;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The zero-bubble schedules train exactly as 1F1B: same seed, same losses within 1e-6 per step, for a
 * Llama with tied embeddings split over 2 and 4 stages (ZBV's V puts both ends of the tie on stage 0),
 * with data-parallel ZeRO-1 buckets under ZBV (their ready hooks count the W's of both chunks), with LoRA (a frozen base)
 * and with tensor (and sequence) parallelism: the column and row layers' dW deferred to W like any linear.
 */
class ZeroBubbleEquivalenceTest {
  @TempDir Path dir;

  private static Trainer tied() {
    return TiedEmbeddingsEquivalenceTest.tied().microBatches(4).steps(2);
  }

  @Test
  void zeroBubbleSchedulesReproduceOneFOneB() {
    List<Double> pp2 = run("1f1b-pp2", t -> t.pipeline(2));
    assertExact(run("zb-h1-pp2", t -> t.pipeline(2).schedule("zb-h1")), pp2);
    assertExact(run("zbv-pp2", t -> t.pipeline(2).schedule("zbv")), pp2);
    assertExact(run("zb-h1-pp4", t -> t.pipeline(4).schedule("zb-h1")), run("1f1b-pp4", t -> t.pipeline(4)));
    UnaryOperator<Trainer> dp = t -> t.dataParallel(2).pipeline(2).microBatches(2).zero(1);
    assertExact(run("zbv-dp2zero1", t -> dp.apply(t).schedule("zbv")), run("1f1b-dp2zero1", dp));
    UnaryOperator<Trainer> lora = t -> t.pipeline(2).lora(4, 8);
    assertExact(run("zbv-lora", t -> lora.apply(t).schedule("zbv")), run("1f1b-lora", lora));
  }

  @Test
  void zeroBubbleRunsWithTensorParallelism() {
    UnaryOperator<Trainer> tp = t -> t.tensorParallel(2).pipeline(2);
    assertExact(run("zb-h1-tp2", t -> tp.apply(t).schedule("zb-h1")), run("1f1b-tp2", tp));
    UnaryOperator<Trainer> sp = t -> tp.apply(t).sequenceParallel();
    assertExact(run("zbv-tp2sp", t -> sp.apply(t).schedule("zbv")), run("1f1b-tp2sp", sp));
  }

  @Test
  void whatTheSplitBackwardCannotRunIsRefusedByField() {
    assertThatThrownBy(() -> SpecCheck.validate(tied().pipeline(2).schedule("zb-h1").recompute().toSpec()))
        .isInstanceOf(SpecException.class).hasMessageContaining("train.recompute");
  }

  private List<Double> run(String name, UnaryOperator<Trainer> layout) {
    RunResult r = layout.apply(tied()).runDir(dir.resolve(name)).fit();
    return r.losses();
  }

  private static void assertExact(List<Double> got, List<Double> want) {
    assertThat(got).hasSameSizeAs(want);
    for (int i = 0; i < got.size(); i++) {
      assertThat(Math.abs(got.get(i) - want.get(i))).as("step %d: %s vs %s", i + 1, got.get(i), want.get(i)).isLessThanOrEqualTo(1e-6);
    }
  }
}
