package dev.weft.parallel.pipeline;

/**
 * One step of a stage's schedule. {@code chunk} is the model chunk on this stage (virtual stage
 * {@code chunk * stages + stage}); {@code peer} is the pp-group rank a transfer talks to, or
 * {@link #NO_PEER} for compute.
 */
public record Action(Kind kind, int microBatch, int chunk, int peer) {
  public static final int NO_PEER = -1;

  public enum Kind {
    /**
     * BACKWARD is the whole backward; zero-bubble schedules split it into BACKWARD_INPUT ("B": only the
     * gradient of the stage input, which the stage upstream waits for) and BACKWARD_WEIGHT ("W": the
     * parameter gradients, which nobody waits for and so can fill what would be a bubble).
     */
    FORWARD, BACKWARD, SEND_ACT, RECV_ACT, SEND_GRAD, RECV_GRAD, BACKWARD_INPUT, BACKWARD_WEIGHT;

    public boolean isCompute() { return this == FORWARD || isBackward(); }
    /** Any part of a backward. */
    public boolean isBackward() { return this == BACKWARD || this == BACKWARD_INPUT || this == BACKWARD_WEIGHT; }
    /** Computes the gradient sent upstream: the whole backward or its input part. */
    public boolean producesInputGradient() { return this == BACKWARD || this == BACKWARD_INPUT; }
    /** Fills parameter gradients: the whole backward or its weight part. */
    public boolean producesWeightGradient() { return this == BACKWARD || this == BACKWARD_WEIGHT; }
    public boolean isSend() { return this == SEND_ACT || this == SEND_GRAD; }
    public boolean isRecv() { return this == RECV_ACT || this == RECV_GRAD; }
    /** Activations flow to higher virtual stages, gradients to lower ones. */
    public boolean carriesActivation() { return this == SEND_ACT || this == RECV_ACT; }
  }

  public Action {
    if (kind == null) throw new IllegalArgumentException("an action needs a kind");
    if (microBatch < 0 || chunk < 0) throw new IllegalArgumentException("negative micro-batch or chunk in " + kind);
    if (kind.isCompute() != (peer == NO_PEER)) throw new IllegalArgumentException(kind + " with peer " + peer);
  }

  public static Action forward(int mb, int chunk) { return new Action(Kind.FORWARD, mb, chunk, NO_PEER); }

  public static Action backward(int mb, int chunk) { return new Action(Kind.BACKWARD, mb, chunk, NO_PEER); }

  public static Action backwardInput(int mb, int chunk) { return new Action(Kind.BACKWARD_INPUT, mb, chunk, NO_PEER); }

  public static Action backwardWeight(int mb, int chunk) { return new Action(Kind.BACKWARD_WEIGHT, mb, chunk, NO_PEER); }

  @Override
  public String toString() {
    String base = kind + "(mb " + microBatch + ", chunk " + chunk;
    return peer == NO_PEER ? base + ")" : base + (kind.isSend() ? ", to " : ", from ") + peer + ")";
  }
}
