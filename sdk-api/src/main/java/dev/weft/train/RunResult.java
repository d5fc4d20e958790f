package dev.weft.train;

import dev.weft.metrics.RunSummary;
import dev.weft.models.LanguageModel;
import dev.weft.models.Weights;
import dev.weft.spec.TrainingSpec;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;

/**
 * What a finished run hands back in-process: the per-step mean losses, the summary, and the trained
 * weights — this rank's slices ({@link #slices}) and, from {@code Trainer.fit()}, the whole tensors
 * by parameter name ({@link #weights}), so a notebook can evaluate and sample ({@link #model()}).
 */
public record RunResult(List<Double> losses, RunSummary summary, TrainingSpec spec, List<Weights.Slice> slices,
                        Map<String, Tensor> weights) {
  public RunResult {
    losses = List.copyOf(losses);
  }

  /** The same result with the whole weights put together from every rank's slices. */
  public RunResult withWeights(Map<String, Tensor> whole) {
    return new RunResult(losses, summary, spec, slices, whole);
  }

  /** The trained model, whole, in this process (built once per call). */
  public LanguageModel model() {
    if (weights == null) throw new IllegalStateException("this result carries only one rank's slices; use Trainer.fit()'s result");
    return WholeModel.withWeights(WholeModel.spec(spec), weights);
  }
}
