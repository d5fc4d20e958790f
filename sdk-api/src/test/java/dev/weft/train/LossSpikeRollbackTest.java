package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.data.DistributedSampler;
import dev.weft.data.Npy;
import dev.weft.data.TokenSource;
import dev.weft.data.TokenWidth;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.TrainingSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 41: {@code train.lossSpike.action: rollback}. The data is an easy repeating pattern except the windows that step
 * {@link #SPIKE} reads, which are random tokens: without the guard that step's loss spikes; with it the run goes back to
 * the checkpoint of step 8, passes over the data of steps 9-10 and completes, and a resume from a later checkpoint
 * keeps that data position.
 */
class LossSpikeRollbackTest {
  @TempDir Path dir;

  static final int SEQ = 16, BATCH = 8, WINDOWS = 200, SPIKE = 10, STEPS = 16;

  Trainer tiny(Path data) {
    return Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 32).set("model.config.heads", 2)
        .data(data.toString()).seqLen(SEQ).globalBatch(BATCH).steps(STEPS).warmup(0).lr(1e-2).seed(3).set("checkpoint.every", 4);
  }

  /** A pattern the model learns in a few steps, with the windows of step {@link #SPIKE} made random. */
  Path data() {
    Path file = dir.resolve("tokens.npy");
    int[] ids = new int[WINDOWS * SEQ + 1];
    // first a file that names each window by its first token, to learn which windows the spiking step reads (the order
    // is a shuffle of the window count and the seed, not of the content)
    for (int w = 0; w < WINDOWS; w++) ids[w * SEQ] = w;
    Npy.write(file, TokenWidth.UINT16, ids);
    TrainingSpec spec = tiny(file).toSpec();
    TokenSource source = TokenSource.of(spec.data(), spec.train().seed());
    DistributedSampler sampler = new DistributedSampler(BATCH, 1, 0, 1);
    List<Integer> bad = new ArrayList<>();
    int[] window = new int[SEQ + 1];
    for (int k = 0; k < BATCH; k++) {
      source.sample(sampler.firstSample(SPIKE - 1, 0) + k, window);
      bad.add(window[0]);
    }
    for (int i = 0; i < ids.length; i++) ids[i] = i % 7;
    Random r = new Random(1);
    for (int w : bad) for (int i = 0; i <= SEQ; i++) ids[w * SEQ + i] = 7 + r.nextInt(190);
    Npy.write(file, TokenWidth.UINT16, ids);
    return file;
  }

  @Test
  void aSpikeRollsBackToTheLastCheckpointAndPassesItsDataOver() throws Exception {
    Path data = data();
    RunResult off = tiny(data).runDir(dir.resolve("off")).fit();
    double before = off.losses().get(SPIKE - 2), spike = off.losses().get(SPIKE - 1);
    assertThat(spike).as("the spike this test needs, losses %s", off.losses()).isGreaterThan(2 * before);

    Path run = dir.resolve("rollback");
    RunResult on = tiny(data).lossSpike(1.8, 3, "rollback").runDir(run).fit();
    assertThat(on.summary().status()).isEqualTo("completed");
    assertThat(on.summary().steps()).isEqualTo(STEPS);
    List<JsonNode> lines = new ArrayList<>();
    for (String l : Files.readAllLines(run.resolve("metrics.jsonl"))) lines.add(MetricsJson.MAPPER.readTree(l));
    assertThat(lines).extracting(n -> n.get("step").asLong()).as("every step once")
        .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, STEPS).boxed().toList());
    JsonNode after = lines.get(8);
    assertThat(after.path("rolled_back_from").asLong()).as("step 9's line says where it came back from").isEqualTo(SPIKE);
    assertThat(after.path("data_skip").asLong()).as("steps 9 and 10's data passed over").isEqualTo(2);
    assertThat(lines.get(9).has("rolled_back_from")).isFalse();
    for (JsonNode n : lines.subList(8, STEPS)) assertThat(n.get("loss").asDouble()).as("no spike recorded: %s", lines).isLessThan(spike / 2);
    for (int s = 1; s <= 8; s++) {
      assertThat(on.losses().get(s - 1)).as("before the spike the runs are alike").isCloseTo(off.losses().get(s - 1),
          org.assertj.core.data.Offset.offset(1e-9));
    }
    JsonNode state = MetricsJson.MAPPER.readTree(run.resolve("checkpoints/step-000012/manifest.json").toFile()).path("state");
    assertThat(state.path("data_skip").asLong()).isEqualTo(2);

    // a resume from step 12 reads the data where the rolled-back run did: the same losses after it
    RunResult resumed = tiny(data).lossSpike(1.8, 3, "rollback").set("checkpoint.resume", run.resolve("checkpoints/step-000012").toString())
        .runDir(dir.resolve("resumed")).fit();
    List<Double> tail = resumed.losses();
    assertThat(tail).hasSize(STEPS - 12);
    for (int i = 0; i < tail.size(); i++) {
      double want = on.losses().get(12 + i);
      assertThat(Math.abs(tail.get(i) - want)).as("step %d", 13 + i).isLessThan(1e-4 * Math.abs(want));
    }
  }

  @Test
  void aSpikeBeforeAnyCheckpointStopsAsDiverged() {
    Path run = dir.resolve("early");
    assertThatThrownBy(() -> LossSpikeTest.blowUp().lossSpike(5, 20, "rollback").set("checkpoint.every", 100).runDir(run).fit())
        .isInstanceOf(TrainingDivergedException.class).hasMessageContaining("no checkpoint was saved yet to roll back to")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    assertThat(MetricsJson.readSummary(run).status()).isEqualTo("diverged");
  }
}
