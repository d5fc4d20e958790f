package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The run record kept with checkpoints in a local directory (a claim): published, continued elsewhere, cut to the resumed step. */
class RunRecordTest {
  @TempDir Path dir;

  private static String lines(long from, long to) {
    return LongStream.rangeClosed(from, to).mapToObj(s -> "{\"step\":" + s + ",\"loss\":1.0}\n").collect(Collectors.joining());
  }

  private static List<Long> steps(Path metrics) throws Exception {
    return Files.readAllLines(metrics).stream().filter(l -> !l.isBlank())
        .map(l -> Long.parseLong(l.replaceAll(".*\"step\":(\\d+).*", "$1"))).toList();
  }

  @Test
  void checkpointsInsideTheRunDirNeedNoRecord() {
    Path run = dir.resolve("run");
    assertThat(RunRecord.of(new LocalCheckpointStorage(run.resolve("checkpoints")), run)).isNull();
    assertThat(RunRecord.of(new LocalCheckpointStorage(dir.resolve("claim")), run)).isNotNull();
  }

  @Test
  void aRunResumedInANewRunDirContinuesThePublishedRecordCutToItsStep() throws Exception {
    LocalCheckpointStorage claim = new LocalCheckpointStorage(dir.resolve("claim"));
    Path podA = Files.createDirectories(dir.resolve("pod-a"));
    Files.writeString(podA.resolve("metrics.jsonl"), lines(1, 12));
    RunRecord.of(claim, podA).publish(List.of(RunRecord.METRICS)); // before the commit of step 12
    assertThat(Files.readString(dir.resolve("claim/run/metrics.jsonl"))).isEqualTo(lines(1, 12));

    Path podB = Files.createDirectories(dir.resolve("pod-b"));
    Files.writeString(podB.resolve("metrics.jsonl"), lines(1, 3)); // an older attempt that ran here
    RunRecord.of(claim, podB).resume(8); // the commit of step 12 did not complete: the run resumes from step 8
    assertThat(steps(podB.resolve("metrics.jsonl"))).containsExactlyElementsOf(LongStream.rangeClosed(1, 8).boxed().toList());
    assertThat(podB.resolve("metrics.jsonl.record")).doesNotExist();

    Path report = dir.resolve("report");
    assertThat(RunRecord.download(claim, report)).isTrue();
    assertThat(steps(report.resolve("metrics.jsonl"))).hasSize(12);
    assertThat(RunRecord.download(new LocalCheckpointStorage(dir.resolve("empty")), dir.resolve("none"))).isFalse();
  }
}
