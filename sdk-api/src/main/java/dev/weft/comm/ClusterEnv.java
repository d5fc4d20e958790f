package dev.weft.comm;

import dev.weft.comm.WorkerIdentity;
import dev.weft.error.WeftException;
import java.util.Map;

/**
 * The environment contract, in one place: every variable a Weft process reads to learn its place in a
 * run, who sets it, and what it means there. Two kinds of process read it:
 * <ul>
 *   <li>a <b>rank</b> ({@link #isRank}): started by a Weft launcher ({@code WEFT_RANK}, written by
 *       {@link WorkerIdentity#toEnv()}) or by torchrun ({@code RANK} together with {@code LOCAL_RANK});</li>
 *   <li>a <b>host</b> ({@link #host}): one process per machine or pod, started by a person or a Kubernetes
 *       controller; it runs {@code nprocPerNode} ranks (itself when that is 1).</li>
 * </ul>
 * Sources (facts as of these versions; docs/kubernetes.md has the table):
 * kubeflow/training-operator v1.9.0 {@code pkg/controller.v1/pytorch/envvar.go} (PyTorchJob);
 * kubeflow/trainer v2.3.0 torch plugin (TrainJob); the Kubernetes Job controller (Indexed Job, and the
 * Jobs a JobSet or TrainJob creates); torchrun ({@code torch/distributed/run.py}); the downward API.
 */
public final class ClusterEnv {
  // Weft's own names: written by Weft launchers (WorkerIdentity.toEnv), and usable by hand. They win.
  public static final String WEFT_RANK = "WEFT_RANK";
  public static final String WEFT_LOCAL_RANK = "WEFT_LOCAL_RANK";
  public static final String WEFT_WORLD_SIZE = "WEFT_WORLD_SIZE";
  public static final String WEFT_MASTER_ADDR = "WEFT_MASTER_ADDR";
  public static final String WEFT_MASTER_PORT = "WEFT_MASTER_PORT";
  public static final String WEFT_NODE_RANK = "WEFT_NODE_RANK";
  public static final String WEFT_NNODES = "WEFT_NNODES";
  public static final String WEFT_NPROC_PER_NODE = "WEFT_NPROC_PER_NODE";
  /** This host's address ({@code --node-addr}); see {@link dev.weft.comm.NodeAddress}. */
  public static final String WEFT_NODE_ADDR = dev.weft.comm.NodeAddress.ENV;

  /** torchrun, per rank: the global rank. PyTorchJob (envvar.go): the NODE index, on every pod (Master 0, Worker i+1). */
  public static final String RANK = "RANK";
  /** torchrun, per rank: the rank on its host. Its presence tells a torchrun rank from a PyTorchJob pod. */
  public static final String LOCAL_RANK = "LOCAL_RANK";
  /** torchrun, per rank: ranks on this host. */
  public static final String LOCAL_WORLD_SIZE = "LOCAL_WORLD_SIZE";
  /** torchrun, per rank: this host's index. */
  public static final String GROUP_RANK = "GROUP_RANK";
  /** torchrun: processes in the run. PyTorchJob: replicas × nprocPerNode, i.e. processes too. */
  public static final String WORLD_SIZE = "WORLD_SIZE";
  /** torchrun and PyTorchJob ({@code <job>-master-0}): rank 0's host. */
  public static final String MASTER_ADDR = "MASTER_ADDR";
  /** torchrun and PyTorchJob (the container port named {@code pytorchjob-port}). */
  public static final String MASTER_PORT = "MASTER_PORT";
  /** PyTorchJob (= RANK, the node index) and TrainJob (the completion index): this host's index. */
  public static final String PET_NODE_RANK = "PET_NODE_RANK";
  /** PyTorchJob (replicas; {@code MIN:MAX} when elastic) and TrainJob (numNodes): hosts. */
  public static final String PET_NNODES = "PET_NNODES";
  /** PyTorchJob and TrainJob: processes per host. */
  public static final String PET_NPROC_PER_NODE = "PET_NPROC_PER_NODE";
  /** PyTorchJob ({@code <job>-master-0}) and TrainJob ({@code <trainjob>-node-0-0.<trainjob>}). */
  public static final String PET_MASTER_ADDR = "PET_MASTER_ADDR";
  /** PyTorchJob (as MASTER_PORT) and TrainJob (always 29500 in v2.0–v2.3). */
  public static final String PET_MASTER_PORT = "PET_MASTER_PORT";
  /** Elastic PyTorchJob: {@code <job>-worker-0:<rdzvPort>}, instead of MASTER_ADDR/PORT. */
  public static final String PET_RDZV_ENDPOINT = "PET_RDZV_ENDPOINT";
  /** Job controller, for Indexed Jobs (so also each pod of a JobSet): the pod's completion index = host index. */
  public static final String JOB_COMPLETION_INDEX = "JOB_COMPLETION_INDEX";
  /** Downward API ({@code status.podIP}), rendered by sdk-k8s: this pod's address. */
  public static final String POD_IP = dev.weft.comm.NodeAddress.POD_IP;

  private ClusterEnv() {}

  /** Whether this process is one rank started by a launcher (Weft's or torchrun), not a host that starts ranks. */
  public static boolean isRank(Map<String, String> env) {
    return set(env, WEFT_RANK) || (set(env, RANK) && set(env, LOCAL_RANK));
  }

  /** This host's plan: how many hosts and ranks, which host this is, where rank 0 listens. */
  public static HostPlan host(Map<String, String> env) {
    int nproc = intOf(env, 1, WEFT_NPROC_PER_NODE, PET_NPROC_PER_NODE);
    Integer world = intOrNull(env, WORLD_SIZE);
    Integer nnodes = intOrNull(env, WEFT_NNODES, PET_NNODES);
    if (nnodes == null) nnodes = world == null ? 1 : world / nproc;
    if (world != null && world != nnodes * nproc) {
      throw new WeftException("WORLD_SIZE=" + world + " is not nodes × processes per node = " + nnodes + " × " + nproc
          + "; set PET_NNODES and PET_NPROC_PER_NODE to match");
    }
    // For a host, RANK is the PyTorchJob node index (or, with one rank per host, the same number).
    int nodeRank = intOf(env, 0, WEFT_NODE_RANK, PET_NODE_RANK, JOB_COMPLETION_INDEX, RANK);
    return new HostPlan(nnodes, nodeRank, nproc, masterAddr(env), masterPort(env), strOf(env, null, WEFT_NODE_ADDR, POD_IP));
  }

  /** This process as one rank: a launcher's rank, or a host that runs exactly one rank (itself). */
  public static WorkerIdentity worker(Map<String, String> env) {
    if (!isRank(env)) {
      HostPlan h = host(env);
      if (h.nprocPerNode() != 1) {
        throw new WeftException("this host runs " + h.nprocPerNode() + " ranks (PET_NPROC_PER_NODE), not one; start it with"
            + " 'weft worker', which launches them");
      }
      return h.worker(0);
    }
    int rank = intOf(env, 0, WEFT_RANK, RANK);
    int world = intOf(env, 1, WEFT_WORLD_SIZE, WORLD_SIZE);
    int local = intOf(env, 0, WEFT_LOCAL_RANK, LOCAL_RANK);
    int nproc = intOf(env, world, WEFT_NPROC_PER_NODE, LOCAL_WORLD_SIZE);
    int nodeRank = intOf(env, rank / nproc, WEFT_NODE_RANK, GROUP_RANK);
    return new WorkerIdentity(rank, world, local, masterAddr(env), masterPort(env), nodeRank, nproc,
        strOf(env, null, WEFT_NODE_ADDR, POD_IP));
  }

  private static String masterAddr(Map<String, String> env) {
    String addr = strOf(env, null, WEFT_MASTER_ADDR, MASTER_ADDR, PET_MASTER_ADDR);
    if (addr != null) return addr;
    String ep = strOf(env, null, PET_RDZV_ENDPOINT);
    if (ep == null) return "127.0.0.1";
    int colon = ep.lastIndexOf(':');
    return colon < 0 ? ep : ep.substring(0, colon);
  }

  private static int masterPort(Map<String, String> env) {
    Integer port = intOrNull(env, WEFT_MASTER_PORT, MASTER_PORT, PET_MASTER_PORT);
    if (port != null) return port;
    String ep = strOf(env, null, PET_RDZV_ENDPOINT);
    int colon = ep == null ? -1 : ep.lastIndexOf(':');
    return colon < 0 ? WorkerIdentity.DEFAULT_PORT : parse(PET_RDZV_ENDPOINT, ep.substring(colon + 1));
  }

  private static boolean set(Map<String, String> env, String name) {
    String v = env.get(name);
    return v != null && !v.isBlank();
  }

  private static Integer intOrNull(Map<String, String> env, String... names) {
    for (String n : names) {
      if (!set(env, n)) continue;
      String v = env.get(n);
      // PET_NNODES may be "MIN:MAX" (elastic): a fixed run starts with the lower bound.
      return parse(n, v.contains(":") ? v.substring(0, v.indexOf(':')) : v);
    }
    return null;
  }

  private static int intOf(Map<String, String> env, int dflt, String... names) {
    Integer v = intOrNull(env, names);
    return v == null ? dflt : v;
  }

  private static String strOf(Map<String, String> env, String dflt, String... names) {
    for (String n : names) if (set(env, n)) return env.get(n).trim();
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
