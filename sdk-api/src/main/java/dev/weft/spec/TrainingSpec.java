package dev.weft.spec;

/**
 * The one contract: what to train, how to split it, and where. Immutable; read from YAML/JSON by
 * {@link SpecIO}, built by the DSL, checked once by {@link SpecValidator}. {@code device} is {@code cpu},
 * {@code cuda} or {@code auto} (see {@link dev.weft.device.DeviceSelection}).
 */
public record TrainingSpec(
    String name,
    ModelSpec model,
    ParallelSpec parallel,
    TrainSpec train,
    PrecisionSpec precision,
    DataSpec data,
    CheckpointSpec checkpoint,
    ElasticSpec elastic,
    MetricsSpec metrics,
    TrackingSpec tracking,
    LoggingSpec logging,
    DeploymentSpec deployment,
    String device) {

  /** Number of ranks this spec needs: dp × tp × pp. */
  public int worldSize() { return parallel.worldSize(); }

  /**
   * Whether {@code train.recompute} checkpoints each decoder layer (its input kept, the layer run again in the backward):
   * on one unsplit rank under ZeRO &lt; 3 for a dense model ({@code moe}: the model has routed experts); elsewhere it
   * recomputes per pipeline chunk. ModelBuilder builds it and the plan counts it by this one rule.
   */
  public boolean checkpointsEachLayer(boolean moe) { return train.recompute() && parallel.unsplit() && parallel.zero() < 3 && !moe; }

  /** Whether a LoRA run's frozen token embedding and head are held in 16 bits: a compressed base on one unsplit rank. */
  public boolean holdsTablesIn16Bits() { return train.lora().quantized() && parallel.unsplit(); }

  /** Per-rank micro-batch size (samples in one forward pass on one dp rank). */
  public int microBatchSize() { return train.globalBatch() / (parallel.dp() * parallel.microBatches()); }
}
