package dev.weft.bench;

import dev.weft.parallel.pipeline.StageModule;
import dev.weft.parallel.pipeline.Schedule;
import dev.weft.parallel.pipeline.Schedules;
import dev.weft.models.DeferredWeightGrads;
import dev.weft.models.Init;
import dev.weft.models.Parameters;
import dev.weft.models.layers.DenseLayers;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;

/**
 * A toy pipeline model for tests and benchmarks: {@code layers} blocks of tanh(linear(x)) of width
 * {@code hidden}, split evenly over the schedule's virtual stages. Weights come from the seed and the
 * layer's index, so any split (or none) starts from the same values. Loss: mean((y − 0.5)²).
 */
public final class TanhStack implements StageModule {
  private final List<List<Tensor[]>> chunks = new ArrayList<>();
  private final Parameters params = new Parameters();
  private final long hidden;

  /** The layers of {@code stage} under {@code schedule}; {@code layers} must divide by its virtual stages. */
  public TanhStack(Schedule schedule, int stage, int layers, long hidden, long seed) {
    int total = schedule.totalVirtualStages();
    if (layers % total != 0) {
      throw new IllegalArgumentException(layers + " layers do not split evenly over " + total + " virtual stages");
    }
    this.hidden = hidden;
    int per = layers / total;
    for (int c = 0; c < schedule.virtualStages(); c++) {
      List<Tensor[]> chunk = new ArrayList<>();
      int first = schedule.virtualStage(stage, c) * per;
      for (int l = first; l < first + per; l++) {
        String name = "layer" + l;
        Tensor w = DenseLayers.whole(params, name + ".weight", Init.normalFull(seed, name + ".weight", 1.0 / Math.sqrt(hidden), hidden, hidden));
        Tensor b = DenseLayers.whole(params, name + ".bias", Init.normalFull(seed, name + ".bias", 0.1, hidden));
        chunk.add(new Tensor[] {w, b});
      }
      chunks.add(chunk);
    }
  }

  /** The whole model on one rank: the reference a pipeline must match. */
  public static TanhStack whole(int layers, long hidden, long seed) {
    return new TanhStack(Schedules.gpipe(1, 1), 0, layers, hidden, seed);
  }

  @Override
  public Tensor forward(int chunk, Tensor input, int microBatch) {
    Tensor h = input;
    for (Tensor[] wb : chunks.get(chunk)) h = DeferredWeightGrads.linear(h, wb[0], wb[1]).tanh();
    return h;
  }

  /** Linear keeps its input and tanh its output for backward: two activations per layer. */
  @Override
  public long savedBytes(int chunk, long[] inputShape) {
    long n = 1;
    for (long d : inputShape) n *= d;
    return chunks.get(chunk).size() * 2L * n * Float.BYTES;
  }

  public Parameters parameters() { return params; }

  @Override
  public java.util.Optional<List<Tensor>> trainableParameters() {
    return java.util.Optional.of(params.list().stream().map(Parameters.Param::tensor).toList());
  }

  /** Deterministic input of micro-batch {@code mb}: [batch, hidden]. */
  public static Tensor input(int mb, long batch, long hidden, long seed) {
    return Init.normalFull(seed, "input" + mb, 1.0, batch, hidden);
  }

  public static Tensor loss(Tensor output) {
    Tensor d = output.sub(new Scalar(0.5));
    return d.mul(d).mean();
  }
}
