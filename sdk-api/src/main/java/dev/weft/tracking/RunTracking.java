package dev.weft.tracking;

import dev.weft.metrics.MetricsJson;
import dev.weft.spec.TrainingSpec;
import dev.weft.tracking.progress.ProgressSink;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What rank 0 records of a run besides {@code metrics.jsonl}: its {@code lineage.json}, and TensorBoard events unless off, and
 * TrainJob progress where Kubeflow Trainer injected its status endpoint. */
public final class RunTracking {
  private RunTracking() {}

  public static List<MetricsJson.Sink> sinks(TrainingSpec spec, Path runDir) {
    List<MetricsJson.Sink> sinks = new ArrayList<>();
    sinks.add(RunLineage.open(spec, runDir));
    TensorBoardSink.open(spec, runDir).ifPresent(sinks::add);
    ProgressSink.open(spec.train().steps(), System.getenv()).ifPresent(sinks::add);
    return sinks;
  }
}
