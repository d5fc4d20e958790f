package dev.weft.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** summary.json's memory: the CUDA allocator's figures where a run has them, no {@code device} key on CPU; the resident set as step 1 began. */
class RunSummaryDeviceMemoryTest {
  @TempDir Path dir;

  private static RunSummary summary(RunSummary.Memory m) {
    return new RunSummary("completed", 3, 1, Map.of("dp", 1, "tp", 1, "pp", 1), 5.0, 4.0, 100, 10, 1e9, 1.0, true, 1000,
        "bf16", 0, m, 0, null, 0, null);
  }

  @Test
  void aCpuRunWritesNoDeviceMemory() throws Exception {
    MetricsJson.writeSummary(dir, summary(new RunSummary.Memory(1, 2, 3, 4)));
    String json = Files.readString(dir.resolve("summary.json"));
    assertThat(json).contains("\"peak_rss\"").doesNotContain("\"device\"");
    assertThat(MetricsJson.readSummary(dir).memory().device()).isNull();
  }

  @Test
  void theResidentSetAsStepOneBeganIsWrittenWhereMeasuredAndReadBack() throws Exception {
    MetricsJson.writeSummary(dir, summary(new RunSummary.Memory(1, 2, 3, 4, 3, null)));
    assertThat(Files.readString(dir.resolve("summary.json"))).contains("\"resident_at_start\" : 3");
    assertThat(MetricsJson.readSummary(dir).memory().residentAtStart()).isEqualTo(3);
    MetricsJson.writeSummary(dir, summary(new RunSummary.Memory(1, 2, 3, 4)));
    assertThat(Files.readString(dir.resolve("summary.json"))).doesNotContain("resident_at_start");
  }

  @Test
  void aCudaRunWritesTheAllocatorsFiguresAndReadsThemBack() throws Exception {
    DeviceMemory d = new DeviceMemory("cuda:0", 10, 20, 15);
    MetricsJson.writeSummary(dir, summary(new RunSummary.Memory(1, 2, 3, 4, d)));
    assertThat(Files.readString(dir.resolve("summary.json"))).contains("\"peak_allocated\" : 15", "\"reserved\" : 20");
    assertThat(MetricsJson.readSummary(dir).memory().device()).isEqualTo(d);
  }
}
