package dev.weft.comm;

import dev.weft.comm.DeviceMesh.Dim;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rank's place in the run: the rendezvous store, the mesh, and a communicator per dimension
 * (plus the whole world). Groups are created in a fixed order (world, tp, pp, dp, cp) on every rank so
 * that their connection handshakes cannot wait on each other.
 */
public final class Distributed implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Distributed.class);

  private final WorkerIdentity id;
  private final DeviceMesh mesh;
  private final Rendezvous store;
  private final Communicator world;
  private final Communicator tp;
  private final Communicator pp;
  private final Communicator dp;
  private final Communicator cp;
  private final Backend backend;
  private final RankDevice device;
  private HybridGroups zeroGroups; // HSDP's sub-groups of dp, made on first use
  private HybridGroups expertGroups; // expert parallelism's ep and edp sub-groups of dp, made on first use
  private boolean processExits; // close leaves everything to the process's exit

  private Distributed(WorkerIdentity id, DeviceMesh mesh, Rendezvous store, Communicator world, Communicator tp,
                      Communicator pp, Communicator dp, Communicator cp, Backend backend, RankDevice device) {
    this.backend = backend;
    this.device = device;
    this.id = id;
    this.mesh = mesh;
    this.store = store;
    this.world = world;
    this.tp = tp;
    this.pp = pp;
    this.dp = dp;
    this.cp = cp;
  }

  /** A CPU rank. */
  public static Distributed start(WorkerIdentity id, DeviceMesh mesh, Backend backend, Duration timeout) {
    return start(id, mesh, backend, RankDevice.CPU, timeout);
  }

  /** A rank on {@code device}, with every group made by {@code backend} (NCCL for CUDA, Gloo for the CPU). */
  public static Distributed start(WorkerIdentity id, DeviceMesh mesh, Backend backend, RankDevice device, Duration timeout) {
    if (mesh.worldSize() != id.worldSize()) {
      throw new CommException("the mesh " + mesh + " needs " + mesh.worldSize() + " ranks but WORLD_SIZE is " + id.worldSize());
    }
    if (id.worldSize() == 1) {
      Communicator solo = new SoloCommunicator("world");
      return new Distributed(id, mesh, null, solo, new SoloCommunicator("tp"), new SoloCommunicator("pp"),
          new SoloCommunicator("dp"), new SoloCommunicator("cp"), backend, device);
    }
    long t0 = System.nanoTime();
    Rendezvous store = Rendezvous.connect(id.masterAddr(), id.masterPort(), id.rank(), id.rank() == 0, timeout, id.nodeAddr());
    Communicator world = backend.createGroup(store, "world", id.rank(), id.worldSize(), timeout);
    Communicator tp = group(backend, store, mesh, Dim.TP, id.rank(), timeout);
    Communicator pp = group(backend, store, mesh, Dim.PP, id.rank(), timeout);
    Communicator dp = group(backend, store, mesh, Dim.DP, id.rank(), timeout);
    Communicator cp = group(backend, store, mesh, Dim.CP, id.rank(), timeout);
    log.info("rank {} joined mesh dp={} pp={} cp={} tp={} at {} in {} ms", id.rank(), mesh.dp(), mesh.pp(), mesh.cp(), mesh.tp(),
        mesh.coord(id.rank()), (System.nanoTime() - t0) / 1_000_000);
    return new Distributed(id, mesh, store, world, tp, pp, dp, cp, backend, device);
  }

  private static Communicator group(Backend backend, Rendezvous store, DeviceMesh mesh, Dim d, int rank, Duration timeout) {
    String name = mesh.groupName(d, rank);
    if (mesh.size(d) == 1) return new SoloCommunicator(name);
    return backend.createGroup(store, name, mesh.index(d, rank), mesh.size(d), timeout);
  }

  public WorkerIdentity identity() { return id; }
  public int rank() { return id.rank(); }
  public DeviceMesh mesh() { return mesh; }
  public DeviceMesh.Coord coord() { return mesh.coord(id.rank()); }
  /** The rendezvous store, or null for a single-rank run. */
  public Rendezvous store() { return store; }
  /** The backend the groups were made with (also a single rank's: it supplies the device's kernels). */
  public Backend backend() { return backend; }
  /** The torch device this rank's parameters, gradients, optimizer state and batches live on. */
  public RankDevice device() { return device; }
  public Communicator world() { return world; }
  public Communicator tp() { return tp; }
  public Communicator pp() { return pp; }
  public Communicator dp() { return dp; }
  /** The context-parallel group: the ranks that split one sequence (a solo group when cp = 1). */
  public Communicator cp() { return cp; }

  /**
   * ZeRO's groups for {@code parallel.zeroShardSize} (HSDP's shard and replicate sub-groups of dp, made on the
   * first call, which every rank makes at the same point; owned and closed here).
   */
  public synchronized HybridGroups zeroGroups(int shardSize) {
    if (zeroGroups == null) zeroGroups = HybridGroups.of(this, shardSize);
    return zeroGroups;
  }

  /**
   * Expert parallelism's groups for {@code parallel.ep}: {@link HybridGroups#shard()} the ep group (experts split over
   * it, tokens exchanged by all-to-all), {@link HybridGroups#replicate()} the edp group (the same experts, their
   * gradients reduced over it). Made on the first call (before the model), at the same point on every rank.
   */
  public synchronized HybridGroups expertGroups(int ep) {
    if (expertGroups == null) expertGroups = HybridGroups.experts(this, ep);
    return expertGroups;
  }

  /**
   * This rank's process ends with the run (a worker process): {@link #close} then returns at once and leaves the
   * groups and the store to the exit, which frees them faster than an orderly release, and does not wait for a peer
   * that may have died (a failed worker's survivors report and exit without waiting out a deadline).
   */
  public Distributed leaveToProcessExit() {
    processExits = true;
    return this;
  }

  /**
   * Releases the groups and the store together with the other ranks ({@link RunRelease}): all ranks past their last
   * collective, then every group destroyed, then the store closed, rank 0's server last. Waits at most the timeout;
   * with a rank gone or stuck everything is left as it is (a leak, not a hang). Nothing to do for a single rank or
   * after {@link #leaveToProcessExit}.
   */
  @Override
  public void close() {
    if (store == null || processExits) return;
    List<AutoCloseable> groups = new ArrayList<>();
    if (expertGroups != null) groups.add(expertGroups);
    if (zeroGroups != null) groups.add(zeroGroups);
    groups.addAll(List.of(cp, dp, pp, tp, world));
    RunRelease.release(store, id.rank(), id.worldSize(), groups, store.timeout());
  }
}
