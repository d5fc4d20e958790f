package dev.weft.comm;

import dev.weft.comm.WorkerIdentity;
import dev.weft.error.WeftException;

/**
 * One host's part of a fixed-size run, torchrun's static rendezvous: {@code nnodes} hosts of
 * {@code nprocPerNode} ranks each, this host's index, rank 0's store address and this host's own
 * address (null: found later by {@link dev.weft.comm.NodeAddress}). Global rank = node rank × nproc + local rank.
 */
public record HostPlan(int nnodes, int nodeRank, int nprocPerNode, String masterAddr, int masterPort, String nodeAddr) {
  public HostPlan {
    if (nnodes < 1) throw new WeftException("hosts (--nnodes, PET_NNODES) = " + nnodes + " must be at least 1");
    if (nprocPerNode < 1) {
      throw new WeftException("processes per host (--nproc-per-node, PET_NPROC_PER_NODE) = " + nprocPerNode + " must be at least 1");
    }
    if (nodeRank < 0 || nodeRank >= nnodes) {
      throw new WeftException("node rank (--node-rank, PET_NODE_RANK) = " + nodeRank + " is outside 0.." + (nnodes - 1)
          + " for " + nnodes + " host(s)");
    }
    if (masterPort < 1 || masterPort > 65535) throw new WeftException("master port " + masterPort + " is not a TCP port");
  }

  /** All ranks on this machine, rank 0's store on loopback. */
  public static HostPlan single(int nproc, int port) { return new HostPlan(1, 0, nproc, "127.0.0.1", port, "127.0.0.1"); }

  public int worldSize() { return nnodes * nprocPerNode; }

  public HostPlan withNodeAddr(String addr) { return new HostPlan(nnodes, nodeRank, nprocPerNode, masterAddr, masterPort, addr); }

  /** The identity of local rank {@code localRank} on this host. */
  public WorkerIdentity worker(int localRank) {
    if (localRank < 0 || localRank >= nprocPerNode) throw new IllegalArgumentException("local rank " + localRank);
    return new WorkerIdentity(nodeRank * nprocPerNode + localRank, worldSize(), localRank, masterAddr, masterPort, nodeRank,
        nprocPerNode, nodeAddr);
  }
}
