package dev.weft.train;

import dev.weft.metrics.RunSummary;
import java.util.List;

/** What a finished run hands back in-process: the per-step mean losses and the summary. */
public record RunResult(List<Double> losses, RunSummary summary) {
  public RunResult {
    losses = List.copyOf(losses);
  }
}
