package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecException;
import dev.weft.testing.WeftCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42, held-out data of its own ({@code data.eval}) and {@code checkpoint.saveBest}: trained on a text of 'a's and
 * evaluated on a text of 'b's, the eval loss rises from the first evaluation on; early stopping ends the run after
 * {@code patience} evaluations without a gain, the best checkpoint (the lowest eval loss) outlives {@code keep}, and
 * {@code weft checkpoint export RUN --best} writes that step's model.
 */
class BestCheckpointTest {
  @TempDir Path dir;

  private Trainer trainer() throws Exception {
    Path train = Files.writeString(dir.resolve("a.txt"), "a".repeat(4000));
    Path held = Files.writeString(dir.resolve("b.txt"), "b".repeat(300)); // 17 windows of 17 tokens: not a batch multiple
    return Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 32).set("model.config.heads", 2)
        .data(train.toString()).evalData(held).seqLen(16).globalBatch(4).steps(20).warmup(0).lr(1e-2).seed(5)
        .set("train.evalEvery", 1);
  }

  @Test
  void aRunWhoseEvalLossRisesStopsEarlyAndItsBestCheckpointExports() throws Exception {
    Path run = dir.resolve("run");
    RunResult r = trainer().set("train.earlyStopping.patience", 2).saveBest().checkpointEvery(1).set("checkpoint.keep", 1)
        .runDir(run).fit();
    List<Double> evals = evalLosses(run);
    assertThat(r.summary().status()).isEqualTo("completed");
    assertThat(r.summary().steps()).as("stopped early").isLessThan(20);
    assertThat(evals).hasSize((int) r.summary().steps());
    int bestStep = 1 + evals.indexOf(evals.stream().min(Double::compare).orElseThrow());
    assertThat(r.summary().steps()).as("patience 2 after the best").isEqualTo(bestStep + 2);
    Path bestDir = run.resolve("checkpoints").resolve(String.format("step-%06d", bestStep));
    assertThat(bestDir).as("the best outlives checkpoint.keep=1").isDirectory();

    Path best = dir.resolve("best");
    WeftCli.Output cli = WeftCli.capture("checkpoint", "export", run.toString(), "--best", "--format", "hf", "-o", best.toString());
    assertThat(cli.code()).as(cli.out()).isZero();
    assertThat(cli.out()).contains("from step " + bestStep + " ");
    Path byStep = dir.resolve("by-step");
    assertThat(WeftCli.capture("checkpoint", "export", bestDir.toString(), "--format", "hf", "-o", byStep.toString()).code()).isZero();
    assertThat(Files.readAllBytes(best.resolve("model.safetensors"))).isEqualTo(Files.readAllBytes(byStep.resolve("model.safetensors")));
    Path latest = dir.resolve("latest");
    assertThat(WeftCli.capture("checkpoint", "export", run.toString(), "--format", "hf", "-o", latest.toString()).code()).isZero();
    assertThat(Files.readAllBytes(latest.resolve("model.safetensors"))).as("the latest is another step")
        .isNotEqualTo(Files.readAllBytes(best.resolve("model.safetensors")));
  }

  @Test
  void aResumedRunMeasuresItsEvaluationsAgainstTheBestBeforeTheResume() throws Exception {
    Path run = dir.resolve("resumed");
    Trainer t = trainer().saveBest().checkpointEvery(1).set("checkpoint.keep", 1).runDir(run);
    t.data(dir.resolve("b.txt")).steps(3).fit(); // trained on the held-out text itself: its eval loss falls
    List<Double> first = evalLosses(run);
    double best = first.stream().min(Double::compare).orElseThrow();
    int bestStep = 1 + first.indexOf(best);
    t.steps(6).evalData(unseen()).resume("latest").fit(); // then evaluated on bytes it never saw: every evaluation is worse
    List<Double> all = evalLosses(run);
    assertThat(all).hasSize(6);
    assertThat(all.subList(3, 6)).as("the held-out loss after the resume").allSatisfy(l -> assertThat(l).isGreaterThan(best));
    // before, the resumed run's first evaluation was a new best (compared with nothing) and retention deleted the real one
    assertThat(run.resolve("checkpoints").resolve(String.format("step-%06d", bestStep))).isDirectory();
    WeftCli.Output cli = WeftCli.capture("checkpoint", "export", run.toString(), "--best", "--format", "hf", "-o", dir.resolve("b").toString());
    assertThat(cli.code()).as(cli.err()).isZero();
    assertThat(cli.out()).contains("from step " + bestStep + " ");
  }

  @Test
  void earlyStoppingAfterAResumeImprovesOnTheBestBeforeIt() throws Exception {
    Path run = dir.resolve("early");
    Trainer t = trainer().checkpointEvery(1).runDir(run);
    t.data(dir.resolve("b.txt")).steps(3).fit(); // as above: the held-out loss falls, then is worse after the resume
    RunResult r = t.steps(6).evalData(unseen()).set("train.earlyStopping.patience", 1).resume("latest").fit();
    assertThat(r.summary().steps()).as("step 4's evaluation is no gain on step 3's").isEqualTo(4);
  }

  @Test
  void bestNeedsARecordedEvalLoss() throws Exception {
    Path run = dir.resolve("plain");
    trainer().set("train.evalEvery", 0).steps(2).checkpointEvery(1).runDir(run).fit();
    WeftCli.Output cli = WeftCli.capture("checkpoint", "export", run.toString(), "--best", "--format", "hf", "-o", dir.resolve("x").toString());
    assertThat(cli.code()).isEqualTo(2);
  }

  @Test
  void heldOutDataIsOneSourceOrOneSplitAndSaveBestNeedsAnEval() throws Exception {
    assertThatThrownBy(() -> trainer().validationSplit(0.1).toSpec()).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("data.eval: ").hasMessageContaining("data.validation");
    assertThatThrownBy(() -> trainer().evalData(dir.resolve("missing.txt")).toSpec()).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("data.eval: ").hasMessageContaining("missing.txt");
    assertThatThrownBy(() -> trainer().set("train.evalEvery", 0).saveBest().toSpec()).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("checkpoint.saveBest: ");
  }

  /** Random letters none of these runs trains on: a model that learned 'a's and 'b's scores them worse than 'b's. */
  private Path unseen() throws Exception {
    java.util.Random r = new java.util.Random(1);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 300; i++) text.append((char) ('c' + r.nextInt(24)));
    return Files.writeString(dir.resolve("unseen.txt"), text);
  }

  private static List<Double> evalLosses(Path run) throws Exception {
    List<Double> out = new ArrayList<>();
    for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) {
      JsonNode n = MetricsJson.MAPPER.readTree(line);
      if (n.has("eval_loss")) out.add(n.get("eval_loss").asDouble());
    }
    return out;
  }
}
