package dev.weft.train;

import dev.weft.error.WeftException;

/**
 * Every rank stopped at the same step boundary because some process of the run was told to stop (SIGTERM: a pod's
 * eviction, a node drain, a spot reclaim), after saving an emergency checkpoint of that step; {@code summary.json}
 * says {@code status: preempted}. Not a failure: workers and launchers exit 0, and {@code --resume latest} continues
 * exactly where the run stopped.
 */
public final class RunPreemptedException extends WeftException {
  private final long step;
  private final boolean checkpointed;

  public RunPreemptedException(long step, boolean checkpointed, String message) {
    super(message);
    this.step = step;
    this.checkpointed = checkpointed;
  }

  /** The step every rank completed (and saved, when {@link #checkpointed()}). */
  public long step() { return step; }

  /** Whether a checkpoint of {@link #step()} is committed (false only when the run saves no checkpoints). */
  public boolean checkpointed() { return checkpointed; }
}
