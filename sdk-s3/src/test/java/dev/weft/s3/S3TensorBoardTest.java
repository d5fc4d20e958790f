package dev.weft.s3;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import dev.weft.testing.PythonRef;
import dev.weft.testing.TensorBoardRead;
import dev.weft.tracking.TensorBoardSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code tracking.tensorboard: s3://...} against S3Proxy: a training run's event files land in the bucket, where
 * TensorBoard's own reader finds every step's loss of {@code metrics.jsonl}; a bucket that is not there leaves them in
 * the run directory and the run finishes.
 */
class S3TensorBoardTest {
  @TempDir Path dir;

  private static Trainer tiny(int steps) {
    return Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(4).steps(steps);
  }

  @Test
  void eventFilesReachTheBucketWithEveryStepsLossAndAMissingBucketLeavesThemLocal() throws Exception {
    PythonRef.require("tensorboard");
    try (S3Server server = S3Server.start("tboard"); S3Client s3 = server.client()) {
      Path run = dir.resolve("run");
      tiny(5).set("tracking.tensorboard", "s3://tboard/runs/a").runDir(run).fit();
      List<String> keys = s3.listObjectsV2(b -> b.bucket("tboard").prefix("runs/a/")).contents().stream().map(o -> o.key()).toList();
      assertThat(keys).isNotEmpty().allMatch(k -> k.startsWith("runs/a/events.out.tfevents."));
      Path copied = Files.createDirectories(dir.resolve("from-bucket"));
      for (String k : keys) s3.getObject(b -> b.bucket("tboard").key(k), copied.resolve(k.substring("runs/a/".length())));

      JsonNode loss = TensorBoardRead.read(copied).get(0).get("train/loss");
      List<String> lines = Files.readAllLines(run.resolve("metrics.jsonl")).stream().filter(l -> !l.isBlank()).toList();
      assertThat(loss).hasSize(5);
      for (int i = 0; i < 5; i++) {
        JsonNode line = MetricsJson.MAPPER.readTree(lines.get(i));
        assertThat(loss.get(i).get(0).asLong()).isEqualTo(line.get("step").asLong());
        assertThat((float) loss.get(i).get(1).asDouble()).isEqualTo((float) line.get("loss").asDouble());
      }

      Path local = dir.resolve("no-bucket");
      TensorBoardSink.open(tiny(2).set("tracking.tensorboard", "s3://no-such-bucket/x").toSpec(), local).orElseThrow().close();
      try (Stream<Path> files = Files.list(local.resolve("tensorboard"))) {
        assertThat(files.map(f -> f.getFileName().toString())).singleElement().asString().startsWith("events.out.tfevents.");
      }
    }
  }
}
