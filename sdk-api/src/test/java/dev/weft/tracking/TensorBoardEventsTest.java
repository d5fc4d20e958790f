package dev.weft.tracking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import dev.weft.spec.SpecValidator;
import dev.weft.spec.TrackingSpec;
import dev.weft.testing.PythonRef;
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
  /** Prints {tag: [[step, value], ...]} of every scalar, and {"text": {tag: string}} of the text tensors. */
  private static final String READ = """
      import json, sys
      from tensorboard.backend.event_processing import event_accumulator as ea
      acc = ea.EventAccumulator(sys.argv[1], size_guidance={ea.SCALARS: 0, ea.TENSORS: 0})
      acc.Reload()
      out = {t: [[e.step, e.value] for e in acc.Scalars(t)] for t in acc.Tags()["scalars"]}
      out["text"] = {t: acc.Tensors(t)[0].tensor_proto.string_val[0].decode("utf-8") for t in acc.Tags()["tensors"]}
      out["plugins"] = {t: acc.SummaryMetadata(t).plugin_data.plugin_name for t in acc.Tags()["tensors"]}
      print(json.dumps(out))
      """;

  @TempDir Path dir;

  @Test
  void framingAndEventsAreReadByTensorBoard() throws Exception {
    PythonRef.require("tensorboard");
    try (TensorBoardWriter w = TensorBoardWriter.open(dir.resolve("tb"))) {
      w.text(0, "notes", "héllo\nworld");
      for (int step = 1; step <= 300; step++) w.scalar(step, "x/y", step * 0.25);
      w.scalar(5_000_000_000L, "big", -1.5);
    }
    JsonNode got = read(dir.resolve("tb"));
    assertThat(got.get("x/y")).hasSize(300);
    assertThat(got.get("x/y").get(299).get(0).asLong()).isEqualTo(300);
    assertThat(got.get("x/y").get(299).get(1).asDouble()).isEqualTo(75.0);
    assertThat(got.get("big").get(0).get(0).asLong()).isEqualTo(5_000_000_000L);
    assertThat(got.get("big").get(0).get(1).asDouble()).isEqualTo(-1.5);
    assertThat(got.get("text").get("notes").asText()).isEqualTo("héllo\nworld");
    assertThat(got.get("plugins").get("notes").asText()).isEqualTo("text");
  }

  @Test
  void theDirectoryIsUnderTheRunDirByDefaultOffIsNoneAndAUriIsRefusedByName() {
    Path run = Path.of("/runs/a");
    assertThat(TensorBoardSink.dir(new TrackingSpec(""), run)).contains(run.resolve("tensorboard"));
    assertThat(TensorBoardSink.dir(new TrackingSpec("tb/x"), run)).contains(run.resolve("tb/x"));
    assertThat(TensorBoardSink.dir(new TrackingSpec("/ckpt/tb"), run)).contains(Path.of("/ckpt/tb"));
    assertThat(TensorBoardSink.dir(new TrackingSpec("off"), run)).isEmpty();
    assertThatThrownBy(() -> SpecValidator.validate(SpecIO.parse("tracking: {tensorboard: 's3://b/tb'}")))
        .isInstanceOf(SpecException.class).hasMessageContaining("tracking.tensorboard").hasMessageContaining("give a path");
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
    JsonNode got = read(dir.resolve("tensorboard"));
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

  private static JsonNode read(Path events) throws Exception {
    Path script = events.resolveSibling("read_events.py");
    Files.writeString(script, READ);
    Process p = new ProcessBuilder(PythonRef.command(script.toString(), events.toString())).redirectErrorStream(false).start();
    byte[] out = p.getInputStream().readAllBytes();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(err).isZero();
    try (Stream<Path> files = Files.list(events)) {
      assertThat(files.map(f -> f.getFileName().toString())).allMatch(n -> n.startsWith("events.out.tfevents."));
    }
    return MetricsJson.MAPPER.readTree(out);
  }
}
