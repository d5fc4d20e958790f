package dev.weft.spec;

import java.util.List;

/**
 * How the work is split. {@code microBatches} is the number of micro-batches each data-parallel rank
 * runs per optimizer step: gradient accumulation when pp = 1, the pipeline's micro-batches when pp > 1
 * (Megatron's meaning). {@code virtualStages} is the number of model chunks per pipeline rank for the
 * interleaved schedule; {@code stages}, when not empty, gives the number of layers of each (virtual)
 * stage instead of an even split.
 *
 * <p>ZeRO tuning: {@code zeroPrefetch} is how many gather groups ahead ZeRO-3 fetches parameters while
 * compute runs; {@code zeroBucketMiB} (ZeRO-2/3) the size of a gradient reduce-scatter bucket and the
 * least size of a gather group (consecutive layers whose parameters are gathered as one buffer).
 *
 * <p>The other dimensions: {@code cp} splits every sequence over that many ranks (context parallelism;
 * {@code cpMethod} {@code allgather}, {@code ring} or {@code alltoall}); {@code ep} splits a mixture-of-experts layer's experts
 * over that many ranks of the dp group (expert parallelism, inside dp); {@code zeroShardSize} &gt; 0 shards
 * ZeRO-1/2/3 state within groups of that many consecutive dp ranks and replicates it across the groups (HSDP; 0 = all of dp).
 */
public record ParallelSpec(int dp, int tp, int pp, int microBatches, String schedule, int zero,
                           boolean sequenceParallel, int virtualStages, List<Integer> stages,
                           // ZeRO tuning
                           int zeroPrefetch, double zeroBucketMiB,
                           // context, expert and hybrid-sharded data parallelism
                           int cp, String cpMethod, int ep, int zeroShardSize) {
  public ParallelSpec {
    stages = stages == null ? List.of() : List.copyOf(stages);
    cpMethod = cpMethod == null ? CpMethod.ALLGATHER.spelling() : cpMethod;
  }

  /** {@link #zeroBucketMiB} in fp32 elements (at least one). */
  public long zeroBucketElements() { return Math.max(1, (long) (zeroBucketMiB * (1 << 20) / 4)); }

  public int worldSize() { return dp * cp * tp * pp; }

  /** One rank holds every layer whole: no tensor, context or pipeline split (a 16-bit frozen embedding/head and per-layer checkpointing need it). */
  public boolean unsplit() { return tp == 1 && cp == 1 && pp == 1; }

  /**
   * Whether each parameter's gradient is a view of the optimizer's flat gradient buffer, so that backward accumulates
   * straight into it: one data-parallel rank ({@code dp}, the group ZeRO works over) at ZeRO stage 0-1, where nothing is
   * reduced or sharded. Otherwise autograd's own gradients live beside the buffer until they are reduced or copied.
   * The one rule: ShardedOptimizer binds the views by it, and the plan counts autograd's gradients by it.
   */
  public static boolean gradientsInFlatBuffer(int dp, int zero) { return dp == 1 && zero <= 1; }

  /** Model chunks per pipeline rank under the chosen schedule. */
  public int chunksPerStage() {
    if (PipelineSchedule.ZBV.spelling().equals(schedule)) return 2; // the two arms of the V
    return PipelineSchedule.INTERLEAVED.spelling().equals(schedule) ? virtualStages : 1;
  }

  /** Whether virtual stage k's chunk on rank k mod pp (looped) or, under {@code zbv}, the V's two arms. */
  public boolean vShaped() { return pp > 1 && PipelineSchedule.ZBV.spelling().equals(schedule); }
}
