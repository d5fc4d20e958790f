package dev.weft.bench;

import dev.weft.parallel.pipeline.Action;
import dev.weft.parallel.pipeline.Schedule;
import dev.weft.parallel.pipeline.PipelineExecutor;
import dev.weft.parallel.pipeline.Schedules;
import dev.weft.parallel.pipeline.ActivationShape;
import dev.weft.parallel.pipeline.Simulation;
import dev.weft.parallel.pipeline.StepResult;
import dev.weft.comm.Communicator;
import dev.weft.comm.Rendezvous;
import dev.weft.comm.gloo.GlooBackend;
import dev.weft.launch.ThreadedRun;
import dev.weft.models.Parameters;
import dev.weft.util.Median;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;

/**
 * Measured pipeline bubble (idle fraction per stage, from the executor's timeline) against the
 * theoretical (p−1)/(v·m + p−1), and peak kept activation bytes with and without recomputation, on
 * the toy {@link TanhStack} with stages as rank threads over Gloo. Ratios come from one run; absolute
 * times mean nothing on a shared machine. Run it as {@code weft bench pipeline}.
 */
public final class PipelineBubbleBench {
  /**
   * Each stage's median bubble over the measured steps (neither best nor worst: other processes
   * stretch computes, which lowers this stage's bubble and raises its neighbour's), the theory, stage 0's peak kept bytes, and
   * how steady the machine was: the slowest forward over the median forward (near 1 when quiet; a
   * busy machine stretches some computes many times, and the stretch shows up as idle elsewhere).
   */
  public record Measurement(String schedule, int stages, int microBatches, int virtualStages, boolean recompute,
                            double[] bubblePerStage, double theory, long peakKeptBytesStage0, double forwardSpread,
                            double medianStepSeconds) {
    public double meanBubble() { return Arrays.stream(bubblePerStage).average().orElse(0); }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%-17s p=%d m=%-2d v=%d recompute=%-5s bubble per stage %s mean %.3f  theory %.3f  ratio %.2f  peak kept bytes (stage 0) %,d  forward spread %.1f",
          schedule, stages, microBatches, virtualStages, recompute, Arrays.toString(Arrays.stream(bubblePerStage)
              .mapToObj(b -> String.format(Locale.ROOT, "%.3f", b)).toArray()), meanBubble(), theory, meanBubble() / theory, peakKeptBytesStage0, forwardSpread);
    }
  }

  private PipelineBubbleBench() {}

  public static Measurement measure(String name, int stages, int m, int v, boolean recompute,
                                    int layers, long hidden, long batch, int steps) {
    Duration timeout = Duration.ofSeconds(120);
    List<double[]> perRank = ThreadedRun.onRanks(stages, timeout, id -> {
      Rendezvous store = Rendezvous.connect(id.masterAddr(), id.masterPort(), id.rank(), id.rank() == 0, timeout);
      Communicator pp = new GlooBackend().createGroup(store, "pp-bench", id.rank(), stages, timeout);
      Schedule s = Schedules.of(name, stages, m, v);
      TanhStack stack = new TanhStack(s, id.rank(), layers, hidden, 1);
      PipelineExecutor ex = PipelineExecutor.builder(s, pp).module(stack)
          .inputs(mb -> TanhStack.input(mb, batch, hidden, 1)).loss((out, mb) -> TanhStack.loss(out))
          .activationShape(ActivationShape.fixed(batch, hidden)).recompute(recompute).build();
      List<Double> bubbles = new ArrayList<>();
      List<Double> forwards = new ArrayList<>();
      List<Double> spans = new ArrayList<>();
      long peak = 0;
      for (int step = 0; step <= steps; step++) {
        pp.barrier();
        StepResult r = ex.step();
        zeroGrads(stack.parameters());
        if (step > 0) {
          bubbles.add(r.timeline().bubble());
          spans.add(r.timeline().spanNanos() / 1e9);
          r.timeline().events().stream().filter(e -> e.action().kind() == Action.Kind.FORWARD).forEach(e -> forwards.add((double) e.nanos()));
        }
        peak = r.peakKeptBytes();
      }
      pp.barrier();
      double spread = forwards.stream().mapToDouble(Double::doubleValue).max().orElse(1) / Median.of(forwards);
      return new double[] {Median.of(bubbles), peak, spread, Median.of(spans)};
    });
    double[] bubble = perRank.stream().mapToDouble(r -> r[0]).toArray();
    return new Measurement(name, stages, m, v, recompute, bubble, Simulation.theoreticalBubble(stages, m, v), (long) perRank.get(0)[1],
        perRank.stream().mapToDouble(r -> r[2]).max().orElse(1), perRank.stream().mapToDouble(r -> r[3]).max().orElse(0));
  }

  private static void zeroGrads(Parameters params) {
    try (PointerScope scope = new PointerScope()) {
      for (Parameters.Param p : params.list()) {
        Tensor g = p.tensor().grad();
        if (g.defined()) g.zero_();
      }
    }
  }


}
