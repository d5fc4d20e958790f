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

  /** Per-rank micro-batch size (samples in one forward pass on one dp rank). */
  public int microBatchSize() { return train.globalBatch() / (parallel.dp() * parallel.microBatches()); }
}
