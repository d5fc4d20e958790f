package dev.weft.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import dev.weft.testing.PythonRef;
import dev.weft.testing.WeftCli;
import dev.weft.tracking.TensorBoardSink;
import dev.weft.testing.TensorBoardRead;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code tracking.tensorboard: s3://...} against S3Proxy: a training run's event files land in the bucket, where
 * TensorBoard's own reader finds every step's loss of {@code metrics.jsonl}; a bucket that is not there is refused
 * before training starts, in one line naming {@code tracking.tensorboard} (by {@code weft train} before any rank starts,
 * and by rank 0's sink in any other launch).
 */
class S3TensorBoardTest {
  @TempDir Path dir;

  private static Trainer tiny(int steps) {
    return Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(4).steps(steps);
  }

  @Test
  void eventFilesReachTheBucketWithEveryStepsLossAndAMissingBucketIsRefusedUpFront() throws Exception {
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

      // a bucket that is not there: refused before training starts, naming the field (not checkpoint.dir)
      String missing = "tracking.tensorboard: s3://no-such-bucket/x: bucket 'no-such-bucket' does not exist";
      TrainingSpec noBucket = tiny(2).set("tracking.tensorboard", "s3://no-such-bucket/x").toSpec();
      assertThatThrownBy(() -> TensorBoardSink.open(noBucket, dir.resolve("no-bucket"))) // rank 0, before its first step
          .isInstanceOf(SpecException.class).hasMessageStartingWith(missing);
      Path spec = dir.resolve("spec.yaml");
      SpecIO.write(noBucket, spec);
      WeftCli.Run train = WeftCli.run("train", spec.toString(), "--run-dir", dir.resolve("cli").toString());
      WeftCli.assertOneLine(train, 2, missing);
      assertThat(dir.resolve("cli").resolve("spec.yaml")).as("refused before any rank started").doesNotExist();
    }
  }
}
