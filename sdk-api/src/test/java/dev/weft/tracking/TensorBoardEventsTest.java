package dev.weft.tracking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecException;
import dev.weft.plan.SpecCheck;
import dev.weft.spec.TrackingSpec;
import dev.weft.testing.PythonRef;
import dev.weft.testing.TensorBoardRead;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Weft's event files as TensorBoard's own reader ({@code EventAccumulator}) sees them. */
class TensorBoardEventsTest {
  @TempDir Path dir;

  /**
   * The framing and events; and for a URI, files begun anew (here every step) and each closed one copied there through
   * the checkpoint storage ({@code file://}: a directory; {@code s3://}: sdk-s3's S3TensorBoardTest), which TensorBoard
   * reads as one run, every step once, in order.
   */
  @Test
  void framingEventsAndRotatedCopiesAreReadByTensorBoard() throws Exception {
    PythonRef.require("tensorboard");
    try (TensorBoardWriter w = TensorBoardWriter.open(dir.resolve("tb"))) {
      w.text(0, "notes", "héllo\nworld");
      for (int step = 1; step <= 300; step++) w.scalar(step, "x/y", step * 0.25);
      w.scalar(5_000_000_000L, "big", -1.5);
    }
    Path copies = dir.resolve("copies");
    EventUploads uploads = EventUploads.open("tracking.tensorboard", copies.toUri().toString(), dir.resolve("work"), java.time.Duration.ofSeconds(30));
    TensorBoardSink sink = new TensorBoardSink(TensorBoardWriter.open(dir.resolve("local")), "a: 1\n", 0, uploads, java.time.Duration.ZERO);
    for (int step = 1; step <= 4; step++) {
      sink.step(new dev.weft.metrics.StepMetrics(step, 3.0 - step * 0.5, 1e-3, 1, 64, 10, 6400, 1e9), null);
    }
    sink.close();
    try (Stream<Path> files = Files.list(copies)) {
      assertThat(files.count()).as("one file per step, and the empty one closed at the end").isEqualTo(5);
    }
    List<JsonNode> both = TensorBoardRead.read(dir.resolve("tb"), copies);
    JsonNode loss = both.get(1).get("train/loss");
    assertThat(loss).hasSize(4);
    for (int i = 0; i < 4; i++) {
      assertThat(loss.get(i).get(0).asLong()).isEqualTo(i + 1);
      assertThat(loss.get(i).get(1).asDouble()).isEqualTo(3.0 - (i + 1) * 0.5);
    }
    JsonNode got = both.get(0);
    assertThat(got.get("x/y")).hasSize(300);
    assertThat(got.get("x/y").get(299).get(0).asLong()).isEqualTo(300);
    assertThat(got.get("x/y").get(299).get(1).asDouble()).isEqualTo(75.0);
    assertThat(got.get("big").get(0).get(0).asLong()).isEqualTo(5_000_000_000L);
    assertThat(got.get("big").get(0).get(1).asDouble()).isEqualTo(-1.5);
    assertThat(got.get("text").get("notes").asText()).isEqualTo("héllo\nworld");
    assertThat(got.get("plugins").get("notes").asText()).isEqualTo("text");
  }

  @Test
  void theDirectoryIsUnderTheRunDirByDefaultOffIsNoneAndAUriWithoutStorageIsRefusedByName() {
    Path run = Path.of("/runs/a");
    assertThat(TensorBoardSink.dir(new TrackingSpec(""), run)).contains(run.resolve("tensorboard"));
    assertThat(TensorBoardSink.dir(new TrackingSpec("tb/x"), run)).contains(run.resolve("tb/x"));
    assertThat(TensorBoardSink.dir(new TrackingSpec("/ckpt/tb"), run)).contains(Path.of("/ckpt/tb"));
    assertThat(TensorBoardSink.dir(new TrackingSpec("s3://b/tb"), run)).as("written locally, copied there").contains(run.resolve("tensorboard"));
    assertThat(TensorBoardSink.dir(new TrackingSpec("off"), run)).isEmpty();
    assertThatThrownBy(() -> SpecCheck.validate(Trainer.model("gpt").set("tracking.tensorboard", "gs://b/tb").toSpec()))
        .isInstanceOf(SpecException.class)
        .hasMessageStartingWith("tracking.tensorboard: gs://b/tb: no checkpoint storage for 'gs://'");
  }

  @Test
  void maskedCrcIsTensorFlows() {
    // TensorFlow's crc32c::Mask of CRC-32C("123456789") = 0xe3069283: rotate right 15, add 0xa282ead8
    int crc = 0xe3069283;
    int masked = ((crc >>> 15) | (crc << 17)) + 0xa282ead8;
    assertThat(TfRecords.maskedCrc("123456789".getBytes(StandardCharsets.US_ASCII), 0, 9)).isEqualTo(masked);
  }

  @Test
  void aTrainingRunsEventsHoldEveryStepsLossFromMetricsJsonl() throws Exception {
    PythonRef.require("tensorboard");
    int steps = 6;
    Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 32).set("model.config.heads", 2)
        .set("data.validation", 0.2).set("train.evalEvery", 3)
        .seqLen(16).globalBatch(4).steps(steps).runDir(dir).fit();

    List<JsonNode> lines = Files.readAllLines(dir.resolve("metrics.jsonl")).stream().filter(l -> !l.isBlank())
        .map(l -> { try { return MetricsJson.MAPPER.readTree(l); } catch (Exception e) { throw new RuntimeException(e); } }).toList();
    assertThat(lines).hasSize(steps);
    JsonNode got = TensorBoardRead.read(dir.resolve("tensorboard")).get(0);
    JsonNode loss = got.get("train/loss");
    assertThat(loss).hasSize(steps);
    for (int i = 0; i < steps; i++) {
      assertThat(loss.get(i).get(0).asLong()).isEqualTo(lines.get(i).get("step").asLong());
      // a scalar event holds a float: the line's loss rounded to float, exactly
      assertThat((float) loss.get(i).get(1).asDouble()).as("step %d", i + 1).isEqualTo((float) lines.get(i).get("loss").asDouble());
    }
    JsonNode eval = got.get("eval/loss");
    assertThat(eval).hasSize(2);
    assertThat((float) eval.get(1).get(1).asDouble()).isEqualTo((float) lines.get(steps - 1).get("eval_loss").asDouble());
    for (String tag : List.of("train/lr", "train/grad_norm", "perf/tokens_per_s", "perf/step_ms", "perf/model_flops_per_s",
        "memory/peak_rss_bytes")) {
      assertThat(got.get(tag)).as(tag).hasSize(steps);
    }
    assertThat((float) got.get("train/lr").get(2).get(1).asDouble()).isEqualTo((float) lines.get(2).get("lr").asDouble());
    assertThat(got.get("text").get("spec").asText()).contains("evalEvery: 3").contains("factory: gpt");
  }
}
