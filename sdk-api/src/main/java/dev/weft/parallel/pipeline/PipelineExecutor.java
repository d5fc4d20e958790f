package dev.weft.parallel.pipeline;

import dev.weft.error.WeftException;
import dev.weft.comm.Communicator;
import java.util.Objects;
import java.util.function.IntFunction;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * Runs this rank's action list of a {@link Schedule} with real transfers over the pipeline group
 * ({@code pp.rank()} is the stage). One {@link #step()} forwards and backwards every micro-batch:
 * each backward adds loss/m's gradients into the parameters' {@code .grad()}, so after the step the
 * gradients equal one backward over the whole batch. Under a zero-bubble schedule a B action computes
 * the stage input's gradient and sends it; the W action of the same micro-batch later fills the
 * parameter gradients. When the module lists its parameters ({@link StageModule#trainableParameters})
 * the graph runs once: B also computes the gradients of parameters outside a deferred linear, W each
 * linear's dW = dYᵀ·X ({@link WeightPass}); else B retains the graph and W runs its whole backward.
 * Zeroing gradients, data-parallel reduction and the optimizer step belong to the caller, after {@code step()} returns.
 */
public final class PipelineExecutor {
  final Schedule schedule;
  final Communicator pp;
  final StageModule module;
  final IntFunction<Tensor> inputs;
  final MicroBatchLoss loss;
  final ActivationShape shape;
  final ScalarType dtype;
  final dev.weft.comm.RankDevice device;
  final boolean recompute;
  final BackwardListener backwardListener;

  private PipelineExecutor(Builder b) {
    this.schedule = Objects.requireNonNull(b.schedule, "schedule");
    this.pp = Objects.requireNonNull(b.pp, "pp communicator");
    this.module = Objects.requireNonNull(b.module, "module: call .module(...)");
    this.inputs = b.inputs;
    this.loss = b.loss;
    this.shape = b.shape;
    this.dtype = b.dtype;
    this.device = b.device;
    this.recompute = b.recompute;
    this.backwardListener = b.backwardListener;
    if (pp.size() != schedule.stages()) {
      throw new WeftException("the schedule has " + schedule.stages() + " stages but the pipeline group " + pp.name()
          + " has " + pp.size() + " ranks; build the schedule with parallel.pp=" + pp.size());
    }
    if (recompute && schedule.actions(stage()).stream().anyMatch(a -> a.kind() == Action.Kind.BACKWARD_WEIGHT)) {
      throw new WeftException("schedule " + schedule.name() + " splits the backward, which keeps each graph until its weight"
          + " gradient; it cannot recompute activations: turn recomputation off or use parallel.schedule=1f1b");
    }
    if (stage() == 0 && inputs == null) throw new WeftException("stage 0 feeds the pipeline: call .inputs(microBatch -> tensor)");
    if (schedule.stages() > 1 && shape == null) {
      throw new WeftException("receivers allocate before data arrives: call .activationShape(ActivationShape.fixed(batch, seq, hidden))");
    }
  }

  public static Builder builder(Schedule schedule, Communicator pp) { return new Builder(schedule, pp); }

  public int stage() { return pp.rank(); }

  public Schedule schedule() { return schedule; }

  /** Runs one training step's forwards and backwards on this stage; every wait is bounded by the group's timeout. */
  public StepResult step() { return new StepRun(this).run(); }

  /** Configures an executor; only {@code module} is always needed. */
  public static final class Builder {
    private final Schedule schedule;
    private final Communicator pp;
    private StageModule module;
    private IntFunction<Tensor> inputs;
    private MicroBatchLoss loss = MicroBatchLoss.IDENTITY;
    private ActivationShape shape;
    private ScalarType dtype = ScalarType.Float;
    private dev.weft.comm.RankDevice device = dev.weft.comm.RankDevice.CPU;
    private boolean recompute;
    private BackwardListener backwardListener = BackwardListener.NONE;

    private Builder(Schedule schedule, Communicator pp) {
      this.schedule = schedule;
      this.pp = pp;
    }

    public Builder module(StageModule m) { this.module = m; return this; }

    /** The data of each micro-batch, for the stage that holds virtual stage 0. */
    public Builder inputs(IntFunction<Tensor> perMicroBatch) { this.inputs = perMicroBatch; return this; }

    /** The loss of each micro-batch from the last virtual stage's output; default: the output is the loss. */
    public Builder loss(MicroBatchLoss l) { this.loss = Objects.requireNonNull(l); return this; }

    public Builder activationShape(ActivationShape s) { this.shape = s; return this; }

    /** Element type of activations and their gradients on the wire (default float32). */
    public Builder activationType(ScalarType t) { this.dtype = Objects.requireNonNull(t); return this; }

    /** Where receive buffers are allocated: the stage's device (default the CPU). */
    public Builder device(dev.weft.comm.RankDevice d) { this.device = Objects.requireNonNull(d); return this; }

    /** Keep only each micro-batch's stage input and run the forward again right before its backward. */
    public Builder recompute(boolean on) { this.recompute = on; return this; }

    /** Called before every backward; says which one is each chunk's last of the step (for data-parallel sync). */
    public Builder beforeBackward(BackwardListener l) { this.backwardListener = Objects.requireNonNull(l); return this; }

    public PipelineExecutor build() { return new PipelineExecutor(this); }
  }
}
