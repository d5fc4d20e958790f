package dev.weft.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.RunSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What an elastic run records: recovery with its detection, and a summary of the whole run, not its last generation. */
class RunRecordsTest {
  @TempDir Path dir;

  private static GenerationRecord gen(int g, long failedAt, long closedAt, long firstStepAt, long firstStep) {
    return new GenerationRecord(g, 1, 1, 1, 8, g == 0 ? "start" : "failure", null, failedAt, closedAt, 1_000, closedAt + 2_000,
        closedAt + 5_000, closedAt + 6_000, firstStepAt, firstStep, 0);
  }

  @Test
  void recoveryCountsFromTheFailureAndReportsDetectionSeparately() {
    GenerationRecord r = gen(1, 100_000, 105_200, 112_000, 21);
    GenerationRecord.Recovery rec = r.recovery();
    assertThat(rec.detectedS()).isEqualTo(5.2);
    assertThat(rec.stopAndRendezvousS()).isEqualTo(2.0);
    assertThat(rec.totalS()).isEqualTo(12.0); // failure → first step, detection included
    assertThat(rec.afterDetectionS()).isEqualTo(6.8); // declared failed → first step: the recovery alone
    assertThat(rec.totalS()).isEqualTo(rec.detectedS() + rec.stopAndRendezvousS() + rec.jvmStartS() + rec.buildAndLoadS()
        + rec.firstStepS(), org.assertj.core.data.Offset.offset(0.02));
  }

  @Test
  void aGrowthHasNoDetection() {
    assertThat(gen(1, 105_200, 105_200, 112_000, 21).recovery().detectedS()).isZero();
  }

  @Test
  void theSummaryOfAResumedRunCountsFromStepOne() throws Exception {
    Files.writeString(dir.resolve("metrics.jsonl"), """
        {"step":1,"loss":4.5}
        {"step":2,"loss":4.0}
        {"step":2,"loss":3.9}
        {"step":3,"loss":3.5}
        """);
    assertThat(MetricsJson.lossAt(dir, 1)).hasValue(4.5);
    assertThat(MetricsJson.lossAt(dir, 2)).hasValue(3.9);
    assertThat(MetricsJson.lossAt(dir, 9)).isEmpty();
    assertThat(MetricsJson.lossAt(dir.resolve("none"), 1)).isEmpty();
  }

  @Test
  void finishingAnElasticRunPutsStepOnesLossAndTheWholeWallTimeIntoTheSummary() throws Exception {
    MemoryKeyValue kv = new MemoryKeyValue();
    MembershipLog log = new MembershipLog(kv, dir);
    long t0 = System.currentTimeMillis() - 60_000;
    log.record(new GenerationRecord(0, 2, 2, 2, 4, "start", null, 0, 0, t0, t0, t0, t0, t0 + 9_000, 1, 0));
    long failed = t0 + 30_000;
    log.record(gen(1, failed, failed + 5_000, failed + 12_000, 21));
    log.countRestart();
    kv.setIfAbsent(ElasticWorker.INITIAL_LOSS, "4.75"); // step 1 ran in generation 0, maybe on another node
    // the last generation's worker wrote a summary of its own attempt only
    MetricsJson.writeSummary(dir, new RunSummary("completed", 40, 1, Map.of("dp", 1), 3.1, 2.0, 1, 1, 1, 12.5, true, 10,
        "fp32", 0, null, 0, null, 0, null));
    log.finish(1);
    JsonNode s = MetricsJson.MAPPER.readTree(dir.resolve("summary.json").toFile());
    assertThat(s.get("steps").asLong()).isEqualTo(40);
    assertThat(s.get("initial_loss").asDouble()).isEqualTo(4.75);
    assertThat(s.get("wall_s").asDouble()).isGreaterThanOrEqualTo(60.0);
    assertThat(s.get("restarts").asInt()).isEqualTo(1);
    JsonNode rec = s.get("elastic").get("generations").get(1).get("recovery_s");
    assertThat(rec.get("detected_s").asDouble()).isEqualTo(5.0);
    assertThat(rec.get("total_s").asDouble()).isEqualTo(12.0);
    assertThat(s.get("elastic").get("recovery_seconds").get(0).asDouble()).isEqualTo(12.0);
  }
}
