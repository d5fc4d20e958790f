package dev.weft.train;

import dev.weft.comm.Communicator;
import dev.weft.data.Batches;
import dev.weft.models.Parameters;
import dev.weft.models.StagedModel;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.parallel.pipeline.ActivationShape;
import dev.weft.parallel.pipeline.PipelineExecutor;
import dev.weft.parallel.pipeline.Schedules;
import dev.weft.parallel.pipeline.StageModule;
import dev.weft.parallel.pipeline.StepResult;
import dev.weft.precision.Autocast;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
  private Tensor microLosses; // [micro] each micro-batch's summed loss, written once more by a recomputation: one read-back per step
  private boolean[] held;
  private int losses;
  private double lossWeight = 1; // the fp16 loss scale over the global batch's count of targets
  private StepResult last;
  private final dev.weft.parallel.expert.StageRouterStats routerStats; // MoE router losses over stages, else null

  PipelinedMicroBatches(StagedModel model, ShardedOptimizer opt, StepData data, String dtype, String schedule, Communicator pp,
                        boolean recompute, int seqPerRank) {
    this.model = model;
    this.opt = opt;
    this.data = data;
    this.dtype = dtype;
    int chunks = model.partition().chunks();
    List<Tensor> trainable = model.parameters().list().stream().map(Parameters.Param::tensor).toList();
    int micro = data.microBatches();
    this.executor = PipelineExecutor.builder(Schedules.of(schedule, pp.size(), micro, chunks), pp)
        .module(new StageModule() {
          @Override
          public Tensor forward(int chunk, Tensor x, int mb) {
            try (Autocast ac = Autocast.of(dtype, data.device().cuda())) {
              return model.forwardChunk(chunk, x, batches.get(mb).documents()).to(ScalarType.Float);
            }
          }

          @Override
          public Optional<List<Tensor>> trainableParameters() { return Optional.of(trainable); }
        })
        .inputs(mb -> batches.get(mb).tokens())
        .loss((h, mb) -> {
          Tensor l;
          try (Autocast ac = Autocast.of(dtype, data.device().cuda())) {
            l = model.headLossSum(h, batches.get(mb).targets());
          }
          if (!held[mb]) losses++;
          held[mb] = true;
          microLosses.select(0, mb).copy_(l.detach()); // in place: the executor's scope frees its temporaries
          return l.mul(new Scalar(lossWeight));
        })
        .activationShape(ActivationShape.fixed(model.activationShape(data.microBatchSize(), seqPerRank)))
        .recompute(recompute)
        .device(data.device())
        .beforeBackward((mb, chunk, lastOfChunk) -> opt.beforeBackward(lastOfChunk ? micro - 1 : 0, micro))
        .build();
    this.routerStats = RouterLossStages.link(model, pp, data.device());
  }

  @Override
  public double run(List<Batches.Batch> step, LossNormalizer norm, double scale) {
    // the executor backpropagates each micro-batch's loss over their number (a mean of micro-batches); undo that
    this.lossWeight = scale * norm.weight() * step.size();
    batches.clear();
    batches.addAll(step);
    microLosses = Tensors.empty(data.device().torch(), ScalarType.Float, step.size()).zero_();
    held = new boolean[step.size()];
    losses = 0;
    last = executor.step();
    if (routerStats != null) routerStats.endStep();
    opt.afterBackward(data.microBatches() - 1, data.microBatches());
    if (losses == 0) return Double.NaN; // stages without the head have no loss
    return norm.reported(microLosses.sum().item_double());
  }

  @Override
  public boolean holdsLoss() { return losses > 0; }

  /** The executor's record of the last step (timeline, kept activation bytes). */
  StepResult lastStep() { return last; }
}
