package dev.weft.parallel.pipeline;

/**
 * Where each virtual stage lives. LOOPED (Megatron's interleaving): chunk c of stage s is virtual stage
 * {@code c·p + s}, so activations wrap from the last stage to stage 0 between chunks. V (zero-bubble ZBV):
 * two chunks per stage, stage s holds virtual stages s and 2p−1−s, so the model runs down the stages and
 * back up; the turn happens on the last stage without a transfer, and stage 0 holds both the input and the loss.
 */
public enum ChunkLayout {
  LOOPED, V;

  public int virtualStage(int stage, int chunk, int stages) {
    return this == V && chunk == 1 ? 2 * stages - 1 - stage : chunk * stages + stage;
  }

  public int ownerOf(int virtualStage, int stages) {
    return this == V && virtualStage >= stages ? 2 * stages - 1 - virtualStage : virtualStage % stages;
  }

  public int chunkOf(int virtualStage, int stages) { return virtualStage / stages; }
}
