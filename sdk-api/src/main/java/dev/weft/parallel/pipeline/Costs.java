package dev.weft.parallel.pipeline;

/** Time units the simulator charges per chunk forward, chunk backward and per transfer (latency). */
public record Costs(double forward, double backward, double transfer) {
  /** Backward costs twice a forward (two matmuls per forward one), transfers are free. */
  public static final Costs UNIT = new Costs(1, 2, 0);

  public Costs {
    if (!(forward >= 0 && backward >= 0 && transfer >= 0)) throw new IllegalArgumentException("costs must be ≥ 0");
  }
}
