package dev.weft.launch;

import dev.weft.WeftException;
import java.util.Map;

/**
 * Who this worker is, read from its environment. Weft's own names come first, then torchrun's
 * ({@code RANK}, {@code WORLD_SIZE}, {@code LOCAL_RANK}, {@code MASTER_ADDR}, {@code MASTER_PORT}),
 * then Kubeflow's {@code PET_*} and the completion index of a JobSet or Indexed Job, so one worker
 * image runs unchanged under each.
 */
public record WorkerIdentity(int rank, int worldSize, int localRank, String masterAddr, int masterPort) {
  public static final int DEFAULT_PORT = 29500;

  public WorkerIdentity {
    if (worldSize < 1) throw new WeftException("WORLD_SIZE=" + worldSize + " must be at least 1");
    if (rank < 0 || rank >= worldSize) {
      throw new WeftException("RANK=" + rank + " is outside 0.." + (worldSize - 1) + " (WORLD_SIZE=" + worldSize + ")");
    }
  }

  public static WorkerIdentity single() { return new WorkerIdentity(0, 1, 0, "127.0.0.1", DEFAULT_PORT); }

  public static WorkerIdentity fromEnv() { return fromEnv(System.getenv()); }

  public static WorkerIdentity fromEnv(Map<String, String> env) {
    int nprocPerNode = intOf(env, 1, "WEFT_NPROC_PER_NODE", "PET_NPROC_PER_NODE", "NPROC_PER_NODE");
    int localRank = intOf(env, 0, "WEFT_LOCAL_RANK", "LOCAL_RANK");
    Integer nodeRank = intOrNull(env, "WEFT_NODE_RANK", "PET_NODE_RANK", "NODE_RANK", "JOB_COMPLETION_INDEX");
    Integer rank = intOrNull(env, "WEFT_RANK", "RANK");
    if (rank == null) rank = nodeRank == null ? 0 : nodeRank * nprocPerNode + localRank;
    Integer world = intOrNull(env, "WEFT_WORLD_SIZE", "WORLD_SIZE");
    if (world == null) {
      Integer nnodes = intOrNull(env, "PET_NNODES", "NNODES");
      world = nnodes == null ? 1 : nnodes * nprocPerNode;
    }
    String addr = strOf(env, "127.0.0.1", "WEFT_MASTER_ADDR", "MASTER_ADDR", "PET_MASTER_ADDR");
    int port = intOf(env, DEFAULT_PORT, "WEFT_MASTER_PORT", "MASTER_PORT", "PET_MASTER_PORT");
    String endpoint = env.get("PET_RDZV_ENDPOINT");
    if (endpoint != null && !env.containsKey("MASTER_ADDR") && !env.containsKey("WEFT_MASTER_ADDR")) {
      int colon = endpoint.lastIndexOf(':');
      addr = colon < 0 ? endpoint : endpoint.substring(0, colon);
      if (colon >= 0) port = parse("PET_RDZV_ENDPOINT", endpoint.substring(colon + 1));
    }
    return new WorkerIdentity(rank, world, localRank, addr, port);
  }

  /** Ranks on each node, from the environment ({@code WEFT_NPROC_PER_NODE}, {@code PET_NPROC_PER_NODE}); all of them when unset. */
  public static int procsPerNode(Map<String, String> env, int worldSize) {
    return intOf(env, worldSize, "WEFT_NPROC_PER_NODE", "PET_NPROC_PER_NODE", "NPROC_PER_NODE");
  }

  private static Integer intOrNull(Map<String, String> env, String... names) {
    for (String n : names) {
      String v = env.get(n);
      if (v != null && !v.isBlank()) {
        // Kubeflow's PET_NNODES may be "1:4" (elastic): the lower bound is the size we start with.
        return parse(n, v.contains(":") ? v.substring(0, v.indexOf(':')) : v);
      }
    }
    return null;
  }

  private static int intOf(Map<String, String> env, int dflt, String... names) {
    Integer v = intOrNull(env, names);
    return v == null ? dflt : v;
  }

  private static String strOf(Map<String, String> env, String dflt, String... names) {
    for (String n : names) {
      String v = env.get(n);
      if (v != null && !v.isBlank()) return v.trim();
    }
    return dflt;
  }

  private static int parse(String name, String v) {
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new WeftException("environment variable " + name + "='" + v + "' is not a whole number");
    }
  }
}
