package dev.weft.parallel.pipeline;

import java.util.List;

/**
 * A pipeline schedule as data: for each stage (pp rank) the ordered actions of one training step.
 * Stage {@code s} holds chunks {@code 0..virtualStages-1}; chunk {@code c} is virtual stage
 * {@code c * stages + s} (Megatron's round-robin layout), so activations leave the last stage for
 * stage 0 between chunks. {@code promisedPeakInFlight} is, per stage, how many micro-batch
 * activations the generator says are alive at most; the simulator checks the promise.
 */
public record Schedule(String name, int stages, int microBatches, int virtualStages,
                       List<List<Action>> actions, List<Integer> promisedPeakInFlight) {
  public Schedule {
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

  public int virtualStage(int stage, int chunk) { return chunk * stages + stage; }

  public int ownerOf(int virtualStage) { return virtualStage % stages; }

  public int chunkOf(int virtualStage) { return virtualStage / stages; }

  public boolean isFirst(int stage, int chunk) { return virtualStage(stage, chunk) == 0; }

  public boolean isLast(int stage, int chunk) { return virtualStage(stage, chunk) == totalVirtualStages() - 1; }
}
