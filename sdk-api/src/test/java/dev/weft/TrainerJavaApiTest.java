package dev.weft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.checkpoint.Checkpoint;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.train.LrSchedule;
import dev.weft.train.RunResult;
import dev.weft.util.Json;
import java.util.ArrayList;
import java.util.List;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42 item 6, the Java API as a notebook uses it: paths as String or Path, {@code Checkpoint.open} on a run
 * directory, a checkpoint root or one step, {@code fit()} leaving no temporary run directory behind, and a run resumed
 * from another run's checkpoint reporting its own first loss as {@code initial_loss}.
 */
class TrainerJavaApiTest {
  @TempDir Path dir;

  static Trainer tiny() {
    return Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(4).warmup(0).seed(3);
  }

  @Test
  void pathsAreTakenAsStringsOrPaths() {
    assertThat(tiny().checkpointDir("runs/a/ck").toSpec().checkpoint().dir()).isEqualTo("runs/a/ck");
    assertThat(tiny().checkpointDir(Path.of("runs/a/ck")).toSpec().checkpoint().dir()).isEqualTo("runs/a/ck");
    assertThat(tiny().initWeights("w.safetensors").toSpec().checkpoint().initWeights()).isEqualTo("w.safetensors");
  }

  @Test
  void fitRemovesTheRunDirectoryItMadeAndKeepsAGivenOne() throws Exception {
    Path root = dir.resolve("temporary");
    List<Long> during = new ArrayList<>(); // run directories under root while the run trains
    RunResult r = tiny().steps(2).temporaryUnder(Files.createDirectories(root)).onStep((m, total) -> during.add(count(root))).fit();
    assertThat(r.losses()).hasSize(2);
    assertThat(during).as("the run wrote into a temporary directory of its own").containsOnly(1L);
    assertThat(count(root)).as("the temporary run directory is gone").isZero();
    Path given = dir.resolve("given");
    tiny().steps(2).runDir(given.toString()).fit();
    assertThat(given.resolve("summary.json")).isRegularFile();
  }

  private static long count(Path root) {
    try (var entries = Files.list(root)) {
      return entries.count();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void setterReturnsANewTrainerAndLeavesItsBaseAsItWas() {
    Trainer base = tiny().steps(3).lr(1e-3);
    Trainer fast = base.lr(3e-3).runDir(dir.resolve("fast")).timeout(java.time.Duration.ofSeconds(60));
    assertThat(fast).isNotSameAs(base);
    assertThat(base.toSpec().train().lr()).isEqualTo(1e-3);
    assertThat(fast.toSpec().train().lr()).isEqualTo(3e-3);
    assertThat(Trainer.model("gpt", java.util.Map.of("layers", 2)).toSpec().model().config()).containsEntry("layers", 2);
  }

  @Test
  void checkpointOpenTakesARunARootOrAStepAndInitialLossIsThisAttemptsFirst() throws Exception {
    Path a = dir.resolve("a");
    tiny().steps(4).checkpointEvery(2).runDir(a).fit();
    Checkpoint step = Checkpoint.open(a.resolve("checkpoints/step-000004"));
    assertThat(Checkpoint.open(a).dir()).isEqualTo(step.dir());
    assertThat(Checkpoint.open(a.resolve("checkpoints")).dir()).isEqualTo(step.dir());
    assertThat(step.step()).isEqualTo(4);

    RunResult resumed = tiny().steps(7).resume(a.resolve("checkpoints/step-000002").toString()).runDir(dir.resolve("b")).fit();
    assertThat(resumed.losses()).hasSize(5);
    assertThat(resumed.summary().initialLoss()).as("step 3, this attempt's first").isEqualTo(resumed.losses().get(0));

    // issue 42 item 3: extending steps keeps the schedule the run started with (4 steps), unless told to stretch it
    LrSchedule four = LrSchedule.of(tiny().steps(4).toSpec().train(), 4), seven = LrSchedule.of(tiny().steps(7).toSpec().train(), 7);
    assertThat(lrs(dir.resolve("b"))).containsExactly(four.at(3), four.at(4), four.at(4), four.at(4), four.at(4));
    tiny().steps(7).set("train.resumeSchedule", "stretch").resume(a.resolve("checkpoints/step-000002").toString()).runDir(dir.resolve("c")).fit();
    assertThat(lrs(dir.resolve("c"))).containsExactly(seven.at(3), seven.at(4), seven.at(5), seven.at(6), seven.at(7));
  }

  @Test
  void epochsRunTheStepsThatManyPassesNeed() throws Exception {
    Path tokens = dir.resolve("tokens.npy");
    int[] ids = new int[1000];
    for (int i = 0; i < ids.length; i++) ids[i] = (i * 31) % 200;
    dev.weft.data.Npy.write(tokens, dev.weft.data.TokenWidth.UINT16, ids);
    Trainer t = tiny().data(tokens.toString()).globalBatch(8).set("train.epochs", 2);
    long samples = dev.weft.data.TokenSource.of(t.toSpec().data(), t.toSpec().train().seed()).distinctSamples();
    assertThat(samples).as("1000 tokens in windows of 16 + 1").isEqualTo(62);
    assertThat(t.toSpec().train().steps()).isEqualTo(16); // ceil(2 × 62 / 8)
    assertThat(t.runDir(dir.resolve("epochs")).fit().losses()).hasSize(16);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> tiny().set("train.epochs", 1).toSpec())
        .hasMessageContaining("train.epochs").hasMessageContaining("no fixed number of samples");
  }

  /** The lr of each step line this attempt wrote to metrics.jsonl (steps after 2). */
  private static List<Double> lrs(Path run) throws Exception {
    List<Double> out = new ArrayList<>();
    for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) {
      JsonNode n = Json.PLAIN.readTree(line);
      if (n.has("lr") && n.get("step").asLong() > 2) out.add(n.get("lr").asDouble());
    }
    return out;
  }
}
