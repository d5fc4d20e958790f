package dev.weft.train;

import dev.weft.data.Batches;
import dev.weft.models.LanguageModel;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.precision.Autocast;
import java.util.List;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;

/** Gradient accumulation on one rank: forward and backward of each micro-batch in turn. */
final class SequentialMicroBatches implements MicroBatches {
  private final LanguageModel model;
  private final ShardedOptimizer opt;
  private final StepData data;
  private final String dtype;
  private final ActivationProbe probe = new ActivationProbe();

  SequentialMicroBatches(LanguageModel model, ShardedOptimizer opt, StepData data, String dtype) {
    this.model = model;
    this.opt = opt;
    this.data = data;
    this.dtype = dtype;
  }

  @Override
  public void measureActivations(dev.weft.comm.Communicator world) { probe.arm(world); }

  @Override
  public java.util.Map<String, Double> withMeasured(java.util.Map<String, Double> metrics) { return probe.with(metrics); }

  @Override
  public double run(List<Batches.Batch> batches, LossNormalizer norm, double lossScale) {
    int micro = batches.size();
    Scalar weight = new Scalar(lossScale * norm.weight());
    Tensor sum = null; // on the device: one read-back per step, not one per micro-batch
    for (int m = 0; m < micro; m++) {
      Batches.Batch b = batches.get(m);
      opt.beforeBackward(m, micro);
      Tensor l;
      if (m == 0) probe.start();
      try (Autocast ac = Autocast.of(dtype, data.device().cuda())) {
        l = model.lossSum(b.tokens(), b.targets(), b.documents());
      }
      if (m == 0) probe.end();
      Tensor detached = l.detach();
      sum = sum == null ? detached : sum.add(detached);
      l.mul(weight).backward();
      opt.afterBackward(m, micro);
    }
    return norm.reported(sum.item_double());
  }
}
