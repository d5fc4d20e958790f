package dev.weft.comm;

import dev.weft.error.WeftException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Who one rank is: global rank, world size, local rank, rank 0's store address, its host's index and
 * size, and its host's own address (null: found by {@link dev.weft.comm.NodeAddress}). Written to a
 * rank's environment only by {@link #toEnv()} and read back only through {@link ClusterEnv}.
 */
public record WorkerIdentity(int rank, int worldSize, int localRank, String masterAddr, int masterPort, int nodeRank,
                             int nprocPerNode, String nodeAddr) {
  public static final int DEFAULT_PORT = 29500;

  public WorkerIdentity {
    if (worldSize < 1) throw new WeftException("WORLD_SIZE=" + worldSize + " must be at least 1");
    if (rank < 0 || rank >= worldSize) {
      throw new WeftException("RANK=" + rank + " is outside 0.." + (worldSize - 1) + " (WORLD_SIZE=" + worldSize + ")");
    }
    if (nprocPerNode < 1) throw new WeftException("nproc-per-node=" + nprocPerNode + " must be at least 1");
  }

  /** A rank of a single-host run (all ranks on this host, node address found later). */
  public WorkerIdentity(int rank, int worldSize, int localRank, String masterAddr, int masterPort) {
    this(rank, worldSize, localRank, masterAddr, masterPort, 0, worldSize, null);
  }

  public static WorkerIdentity single() { return new WorkerIdentity(0, 1, 0, "127.0.0.1", DEFAULT_PORT); }

  /** This process's identity (see {@link ClusterEnv#worker}). */
  public static WorkerIdentity fromEnv() { return fromEnv(System.getenv()); }

  public static WorkerIdentity fromEnv(Map<String, String> env) { return ClusterEnv.worker(env); }

  /** The variables a launcher sets for this rank: Weft's own names, read first by {@link ClusterEnv}. */
  public Map<String, String> toEnv() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put(ClusterEnv.WEFT_RANK, String.valueOf(rank));
    env.put(ClusterEnv.WEFT_LOCAL_RANK, String.valueOf(localRank));
    env.put(ClusterEnv.WEFT_WORLD_SIZE, String.valueOf(worldSize));
    env.put(ClusterEnv.WEFT_MASTER_ADDR, masterAddr);
    env.put(ClusterEnv.WEFT_MASTER_PORT, String.valueOf(masterPort));
    env.put(ClusterEnv.WEFT_NODE_RANK, String.valueOf(nodeRank));
    env.put(ClusterEnv.WEFT_NPROC_PER_NODE, String.valueOf(nprocPerNode));
    if (nodeAddr != null) env.put(ClusterEnv.WEFT_NODE_ADDR, nodeAddr);
    return env;
  }
}
