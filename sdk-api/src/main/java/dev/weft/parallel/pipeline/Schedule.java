package dev.weft.parallel.pipeline;

import java.util.List;

/**
 * A pipeline schedule as data: for each stage (pp rank) the ordered actions of one training step.
 * Stage {@code s} holds chunks {@code 0..virtualStages-1}; chunk {@code c} is virtual stage
 * {@code c * stages + s} (Megatron's round-robin layout, activations leave the last stage for
 * stage 0 between chunks) or, in the {@link ChunkLayout#V} layout, {@code s} and {@code 2·stages−1−s}. {@code promisedPeakInFlight} is, per stage, how many micro-batch
 * activations the generator says are alive at most; the simulator checks the promise.
 */
public record Schedule(String name, int stages, int microBatches, int virtualStages, ChunkLayout layout,
                       List<List<Action>> actions, List<Integer> promisedPeakInFlight) {
  /** A schedule in the looped (Megatron) layout. */
  public Schedule(String name, int stages, int microBatches, int virtualStages,
                  List<List<Action>> actions, List<Integer> promisedPeakInFlight) {
    this(name, stages, microBatches, virtualStages, ChunkLayout.LOOPED, actions, promisedPeakInFlight);
  }

  public Schedule {
    if (layout == ChunkLayout.V && virtualStages != 2) throw new IllegalArgumentException("a V layout has 2 chunks per stage, got " + virtualStages);
    if (stages < 1 || microBatches < 1 || virtualStages < 1) {
      throw new IllegalArgumentException("stages, microBatches and virtualStages must be ≥ 1, got "
          + stages + ", " + microBatches + ", " + virtualStages);
    }
    if (actions.size() != stages || promisedPeakInFlight.size() != stages) {
      throw new IllegalArgumentException("a schedule for " + stages + " stages needs one action list and one promise per stage");
    }
    actions = actions.stream().map(List::copyOf).toList();
    promisedPeakInFlight = List.copyOf(promisedPeakInFlight);
  }

  public List<Action> actions(int stage) { return actions.get(stage); }

  public int totalVirtualStages() { return stages * virtualStages; }

  public int virtualStage(int stage, int chunk) { return layout.virtualStage(stage, chunk, stages); }

  public int ownerOf(int virtualStage) { return layout.ownerOf(virtualStage, stages); }

  public int chunkOf(int virtualStage) { return layout.chunkOf(virtualStage, stages); }

  public boolean isFirst(int stage, int chunk) { return virtualStage(stage, chunk) == 0; }

  public boolean isLast(int stage, int chunk) { return virtualStage(stage, chunk) == totalVirtualStages() - 1; }
}
