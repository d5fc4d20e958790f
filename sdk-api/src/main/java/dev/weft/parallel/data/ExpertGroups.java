package dev.weft.parallel.data;

import dev.weft.comm.Communicator;
import dev.weft.comm.SoloCommunicator;
import java.util.Set;

/**
 * Expert parallelism as {@link ShardedOptimizer} sees it: which parameters are routed experts (a rank holds only
 * its ep rank's share), the edp group that holds the same experts (their gradients are reduced, and their ZeRO
 * state sharded, over it) and the ep group holding the others (the gradient norm sums over it). An expert's
 * gradient already holds every ep rank's tokens (the all-to-all's backward brought them), so its mean is over the
 * edp × ep ranks — all of dp — like any other parameter's.
 */
public record ExpertGroups(Set<String> names, Communicator edp, Communicator ep) {
  public ExpertGroups {
    names = Set.copyOf(names);
  }

  /** No expert parallelism: every parameter reduces over dp. */
  public static ExpertGroups none() {
    return new ExpertGroups(Set.of(), new SoloCommunicator("edp"), new SoloCommunicator("ep"));
  }

  public boolean any() { return !names.isEmpty(); }
}
