package dev.weft.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A resumed run cuts metrics.jsonl back to its checkpoint's step, so the steps it trains again appear once. */
class MetricsTruncateTest {
  @TempDir Path dir;

  @Test
  void keepsTheStepsUpToTheResumedOneAndDropsATornLine() throws Exception {
    Files.write(dir.resolve("metrics.jsonl"), List.of("{\"step\":1,\"loss\":5.0}", "{\"step\":2,\"loss\":4.0}",
        "{\"step\":3,\"loss\":3.0}", "{\"step\":4,\"lo"));
    MetricsJson.keepThrough(dir.resolve("metrics.jsonl"), 2);
    assertThat(Files.readAllLines(dir.resolve("metrics.jsonl"))).containsExactly("{\"step\":1,\"loss\":5.0}", "{\"step\":2,\"loss\":4.0}");
    MetricsJson.keepThrough(dir.resolve("absent"), 2); // nothing there: nothing to do
    assertThat(dir.resolve("absent")).doesNotExist();
  }
}
