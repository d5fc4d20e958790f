package dev.weft.elastic;

import dev.weft.WeftException;
import java.time.Duration;

/**
 * How an elastic agent runs: {@code --nnodes MIN:MAX}, {@code --nproc-per-node}, the rendezvous
 * endpoint and run id, the join window, the failure timeout and how many restarts to allow.
 */
public record ElasticOptions(int minNodes, int maxNodes, int procsPerNode, Endpoint endpoint, String runId,
                             Duration joinWindow, Duration failureTimeout, int maxRestarts, Duration rendezvousTimeout) {
  public static final Duration DEFAULT_JOIN_WINDOW = Duration.ofSeconds(2);

  public ElasticOptions {
    if (minNodes < 1 || maxNodes < minNodes) {
      throw new WeftException("--nnodes " + minNodes + ":" + maxNodes + " is not a range of node counts; use MIN:MAX with 1 ≤ MIN ≤ MAX");
    }
    if (procsPerNode < 1) throw new WeftException("--nproc-per-node " + procsPerNode + " must be at least 1");
    if (runId == null || !runId.matches("[A-Za-z0-9._-]{1,64}")) {
      throw new WeftException("--rdzv-id '" + runId + "' must be 1-64 letters, digits, '.', '_' or '-'");
    }
  }

  /** {@code "2"} or {@code "1:4"}. */
  public static int[] parseNodes(String s) {
    try {
      String[] p = s.trim().split(":");
      if (p.length == 1) return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[0])};
      if (p.length == 2) return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1])};
    } catch (NumberFormatException ignored) {
      // falls through to the message
    }
    throw new WeftException("--nnodes '" + s + "' is neither N nor MIN:MAX (e.g. 1:2)");
  }
}
