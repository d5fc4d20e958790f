package dev.weft.k8s.apply;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The line {@code weft k8s status} prints for a job object: its true conditions and a TrainJob's reported progress. */
class JobStatusTest {
  @Test
  void aTrainJobsProgressFollowsItsConditions() {
    Map<String, Object> status = Map.of(
        "conditions", List.of(Map.of("type", "Created", "status", "True"), Map.of("type", "Complete", "status", "False")),
        "trainerStatus", Map.of("progressPercentage", 45, "estimatedRemainingSeconds", 4000, "lastUpdatedTime", "2026-12-03T04:30:00Z",
            "metrics", List.of(Map.of("name", "loss", "value", "2.31"), Map.of("name", "current_step", "value", "450"),
                Map.of("name", "total_steps", "value", "1000"))));
    assertThat(JobStatus.line("TrainJob", status))
        .isEqualTo("Created; progress 45%, about 1h6m left, step 450/1000, loss=2.31 (at 2026-12-03T04:30:00Z)");
    assertThat(JobStatus.line("JobSet", status)).as("only a TrainJob has trainerStatus").isEqualTo("Created");
    assertThat(JobStatus.line("TrainJob", null)).isEqualTo("no conditions yet (is its operator running?)");
    assertThat(JobStatus.line("TrainJob", Map.of("trainerStatus", Map.of("lastUpdatedTime", "t"))))
        .isEqualTo("no conditions yet (is its operator running?); trainer status without figures (at t)");
    assertThat(JobStatus.duration(59)).isEqualTo("59s");
    assertThat(JobStatus.duration(800)).isEqualTo("13m20s");
  }
}
