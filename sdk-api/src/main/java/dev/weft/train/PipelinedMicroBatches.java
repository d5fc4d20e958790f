package dev.weft.train;

import dev.weft.comm.Communicator;
import dev.weft.data.Batches;
import dev.weft.models.StagedModel;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.parallel.pipeline.ActivationShape;
import dev.weft.parallel.pipeline.PipelineExecutor;
import dev.weft.parallel.pipeline.Schedules;
import dev.weft.parallel.pipeline.StepResult;
import dev.weft.precision.Autocast;
import java.util.ArrayList;
import java.util.List;
import dev.weft.util.Tensors;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * A step through the pipeline schedule: the executor runs this stage's forwards and backwards with
 * real transfers to the neighbouring stages; gradients of each chunk are reduced over the data-parallel
 * group during that chunk's last backward. Also the way to recompute activations on one stage.
 */
final class PipelinedMicroBatches implements MicroBatches {
  private final StagedModel model;
  private final ShardedOptimizer opt;
  private final StepData data;
  private final String dtype;
  private final PipelineExecutor executor;
  private final List<Batches.Batch> batches = new ArrayList<>();
  private Tensor lossSum; // this step's micro-batch losses, summed on the device: one read-back per step
  private int losses;
  private double lossScale = 1;
  private StepResult last;

  PipelinedMicroBatches(StagedModel model, ShardedOptimizer opt, StepData data, String dtype, String schedule, Communicator pp,
                        boolean recompute, int seqPerRank) {
    this.model = model;
    this.opt = opt;
    this.data = data;
    this.dtype = dtype;
    int chunks = model.partition().chunks();
    int micro = data.microBatches();
    this.executor = PipelineExecutor.builder(Schedules.of(schedule, pp.size(), micro, chunks), pp)
        .module((chunk, x, mb) -> {
          try (Autocast ac = Autocast.of(dtype, data.device().cuda())) {
            return model.forwardChunk(chunk, x).to(ScalarType.Float);
          }
        })
        .inputs(mb -> batches.get(mb).tokens())
        .loss((h, mb) -> {
          Tensor l;
          try (Autocast ac = Autocast.of(dtype, data.device().cuda())) {
            l = model.headLoss(h, batches.get(mb).targets());
          }
          lossSum.add_(l.detach());
          losses++;
          return l.mul(new Scalar(lossScale));
        })
        .activationShape(ActivationShape.fixed(model.activationShape(data.microBatchSize(), seqPerRank)))
        .recompute(recompute)
        .device(data.device())
        .beforeBackward((mb, chunk, lastOfChunk) -> opt.beforeBackward(lastOfChunk ? micro - 1 : 0, micro))
        .build();
  }

  @Override
  public double run(long step, double scale) {
    this.lossScale = scale;
    batches.clear();
    lossSum = Tensors.empty(data.device().torch(), ScalarType.Float).zero_(); // a 0-d sum, where the losses are
    losses = 0;
    for (int m = 0; m < data.microBatches(); m++) batches.add(data.batch(step, m));
    last = executor.step();
    opt.afterBackward(data.microBatches() - 1, data.microBatches());
    return losses == 0 ? Double.NaN : lossSum.item_double() / losses; // stages without the head have no loss
  }

  @Override
  public boolean holdsLoss() { return losses > 0; }

  /** The executor's record of the last step (timeline, kept activation bytes). */
  StepResult lastStep() { return last; }
}
