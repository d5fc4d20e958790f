package dev.weft.metrics;

/**
 * One optimizer step as it appears in {@code metrics.jsonl} (snake_case keys). {@code commMs} is the
 * communication the step waited for (gradient buckets not yet reduced when backward ended, ZeRO's
 * parameter gathers not yet arrived when a layer needed them, the tensor-parallel collectives — forward
 * ones whole, backward ones where the weight gradients did not hide them — the sequence-parallel
 * partial-gradient sum, and the loss all-reduce),
 * {@code computeMs = stepMs - commMs}, {@code idleMs} the time between the previous step's end and
 * this one's start; {@code peakRssBytes} is this process's peak resident memory. {@code lossScale}
 * is the fp16 loss scale the step used (1 otherwise) and {@code skipped} whether the step was skipped
 * because some rank's gradients overflowed. {@code zero} splits the data-parallel part of
 * {@code commMs} (see {@link ZeroComm}).
 */
public record StepMetrics(long step, double loss, double lr, double gradNorm, long tokens, double stepMs,
                          double tokensPerS, double modelFlopsPerS, double computeMs, double commMs, double idleMs,
                          int worldSize, long peakRssBytes, double lossScale, boolean skipped, ZeroComm zero) {
  /**
   * The data-parallel communication of one step on this rank: what it waited for ({@code *WaitMs},
   * exposed, part of {@code commMs}) and what it moved. {@code gatherWaitMs}: ZeRO-3 layers waiting for
   * their parameters' all-gather (forward and backward's re-gather); {@code reduceWaitMs}: gradient
   * all-reduces / reduce-scatters still running when backward ended; {@code paramGatherWaitMs}: ZeRO-1/2
   * waiting for the updated parameters' all-gather. {@code gathers} and {@code gatheredMib}: parameter
   * all-gathers issued and the MiB they brought in; {@code reductions}: gradient collectives issued and
   * {@code reducedMib} their payload (in the shard group under HSDP); {@code replicatedMib}: HSDP's all-reduce
   * payload of the gradient shards across the replicate group (the only one that crosses hosts).
   */
  public record ZeroComm(double gatherWaitMs, double reduceWaitMs, double paramGatherWaitMs, int gathers, double gatheredMib,
                         int reductions, double reducedMib, double replicatedMib) {
    public static final ZeroComm NONE = new ZeroComm(0, 0, 0, 0, 0, 0, 0, 0);

    public double exposedMs() { return gatherWaitMs + reduceWaitMs + paramGatherWaitMs; }
  }

  /** Without the data-parallel split. */
  public StepMetrics(long step, double loss, double lr, double gradNorm, long tokens, double stepMs, double tokensPerS,
                     double modelFlopsPerS, double computeMs, double commMs, double idleMs, int worldSize, long peakRssBytes,
                     double lossScale, boolean skipped) {
    this(step, loss, lr, gradNorm, tokens, stepMs, tokensPerS, modelFlopsPerS, computeMs, commMs, idleMs, worldSize, peakRssBytes,
        lossScale, skipped, ZeroComm.NONE);
  }

  /** Without the time split and process figures (they read as 0, world size 1). */
  public StepMetrics(long step, double loss, double lr, double gradNorm, long tokens, double stepMs, double tokensPerS,
                     double modelFlopsPerS) {
    this(step, loss, lr, gradNorm, tokens, stepMs, tokensPerS, modelFlopsPerS, stepMs, 0, 0, 1, 0, 1, false);
  }
}
