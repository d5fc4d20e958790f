package dev.weft.tracking.progress;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * One progress report, as TrainJob's {@code status.trainerStatus} holds it (kubeflow/trainer
 * {@code pkg/apis/trainer/v1alpha1/trainjob_types.go}, KEP-2779): a percentage 0–100 and the estimated seconds left
 * (either absent when unknown), the latest metrics as name/value strings, and when they were observed (required).
 */
public record TrainerStatus(Integer progressPercentage, Integer estimatedRemainingSeconds, List<Metric> metrics,
                            Instant lastUpdatedTime) {
  private static final ObjectMapper JSON = new ObjectMapper().setSerializationInclusion(JsonInclude.Include.NON_NULL);

  /** A metric; the API takes every value as a string. */
  public record Metric(String name, String value) {}

  public TrainerStatus {
    metrics = List.copyOf(metrics);
  }

  /** The request body of the status endpoint: {@code {"trainerStatus": {...}}}, time in RFC 3339 to the second. */
  public String requestBody() {
    ObjectNode s = JSON.createObjectNode();
    if (progressPercentage != null) s.put("progressPercentage", progressPercentage);
    if (estimatedRemainingSeconds != null) s.put("estimatedRemainingSeconds", estimatedRemainingSeconds);
    var list = s.putArray("metrics");
    for (Metric m : metrics) list.addObject().put("name", m.name()).put("value", m.value());
    s.put("lastUpdatedTime", lastUpdatedTime.truncatedTo(ChronoUnit.SECONDS).toString());
    ObjectNode body = JSON.createObjectNode();
    body.set("trainerStatus", s);
    return body.toString();
  }
}
