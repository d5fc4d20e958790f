package dev.weft.launch;

import dev.weft.comm.HostPlan;
import dev.weft.comm.ClusterEnv;
import dev.weft.comm.WorkerIdentity;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.error.WeftException;
import java.util.HashMap;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** Each launcher's and controller's variables read with their own meaning. */
class ClusterEnvProperties {
  @Property
  void weftIdentitiesRoundTripThroughTheEnvironment(@ForAll @IntRange(min = 1, max = 8) int nnodes,
                                                    @ForAll @IntRange(min = 1, max = 8) int nproc,
                                                    @ForAll @IntRange(min = 0, max = 63) int n, @ForAll @IntRange(min = 0, max = 63) int l) {
    HostPlan plan = new HostPlan(nnodes, n % nnodes, nproc, "10.1.2.3", 29501, "10.1.2." + (10 + n % nnodes));
    WorkerIdentity id = plan.worker(l % nproc);
    Map<String, String> env = new HashMap<>(id.toEnv());
    env.putAll(Map.of("RANK", "99", "WORLD_SIZE", "100", "POD_IP", "10.9.9.9")); // Weft's names win
    assertThat(ClusterEnv.isRank(env)).isTrue();
    assertThat(ClusterEnv.worker(env)).isEqualTo(id);
    assertThat(id.rank()).isEqualTo((n % nnodes) * nproc + l % nproc);
  }

  @Property
  void torchrunRanksAreGlobal(@ForAll @IntRange(min = 1, max = 64) int world, @ForAll @IntRange(min = 0, max = 63) int r,
                              @ForAll @IntRange(min = 1024, max = 65535) int port) {
    int rank = r % world;
    WorkerIdentity id = ClusterEnv.worker(Map.of("RANK", "" + rank, "WORLD_SIZE", "" + world, "LOCAL_RANK", "0",
        "MASTER_ADDR", "trainer-0.svc", "MASTER_PORT", "" + port));
    assertThat(id).isEqualTo(new WorkerIdentity(rank, world, 0, "trainer-0.svc", port));
  }

  @Property
  void pyTorchJobRankIsTheNodeIndexAndWorldSizeCountsProcesses(@ForAll @IntRange(min = 1, max = 8) int nnodes,
                                                               @ForAll @IntRange(min = 1, max = 8) int nproc,
                                                               @ForAll @IntRange(min = 0, max = 63) int n) {
    int node = n % nnodes;
    // exactly what training-operator v1.9.0 appends to a fixed PyTorchJob's container (envvar.go)
    Map<String, String> env = Map.of("PYTHONUNBUFFERED", "1", "MASTER_ADDR", "job-master-0", "PET_MASTER_ADDR", "job-master-0",
        "MASTER_PORT", "23456", "PET_MASTER_PORT", "23456", "WORLD_SIZE", "" + nnodes * nproc, "RANK", "" + node,
        "PET_NODE_RANK", "" + node, "PET_NPROC_PER_NODE", "" + nproc, "PET_NNODES", "" + nnodes);
    assertThat(ClusterEnv.isRank(env)).isFalse();
    HostPlan h = ClusterEnv.host(env);
    assertThat(h).isEqualTo(new HostPlan(nnodes, node, nproc, "job-master-0", 23456, null));
    assertThat(h.worker(nproc - 1).rank()).isEqualTo(node * nproc + nproc - 1);
    if (nproc == 1) assertThat(ClusterEnv.worker(env).rank()).isEqualTo(node);
    else assertThatThrownBy(() -> ClusterEnv.worker(env)).hasMessageContaining("weft worker");
  }

  @Property
  void trainJobAndIndexedJobsUseTheirIndex(@ForAll @IntRange(min = 1, max = 8) int nnodes, @ForAll @IntRange(min = 1, max = 8) int nproc,
                                           @ForAll @IntRange(min = 0, max = 63) int n) {
    int node = n % nnodes;
    // Trainer v2.3 torch plugin
    HostPlan tj = ClusterEnv.host(Map.of("PET_NNODES", "" + nnodes, "PET_NPROC_PER_NODE", "" + nproc, "PET_NODE_RANK", "" + node,
        "PET_MASTER_ADDR", "tj-node-0-0.tj", "PET_MASTER_PORT", "29500", "JOB_COMPLETION_INDEX", "" + node, "POD_IP", "10.4.0.7"));
    assertThat(tj).isEqualTo(new HostPlan(nnodes, node, nproc, "tj-node-0-0.tj", 29500, "10.4.0.7"));
    // Indexed Job: the Job controller's index; Weft renders the sizes and the master
    HostPlan job = ClusterEnv.host(Map.of("JOB_COMPLETION_INDEX", "" + node, "PET_NNODES", "" + nnodes,
        "PET_NPROC_PER_NODE", "" + nproc, "MASTER_ADDR", "job-0.job"));
    assertThat(job).isEqualTo(new HostPlan(nnodes, node, nproc, "job-0.job", WorkerIdentity.DEFAULT_PORT, null));
  }

  @Test
  void elasticNodeRangesStartFromTheLowerBound() {
    HostPlan h = ClusterEnv.host(Map.of("PET_NNODES", "2:4", "PET_NPROC_PER_NODE", "1", "PET_RDZV_ENDPOINT", "job-worker-0:29400"));
    assertThat(h).isEqualTo(new HostPlan(2, 0, 1, "job-worker-0", 29400, null));
  }

  @Test
  void badValuesAreNamed() {
    assertThatThrownBy(() -> ClusterEnv.worker(Map.of("RANK", "two"))).isInstanceOf(WeftException.class).hasMessageContaining("RANK");
    assertThatThrownBy(() -> ClusterEnv.worker(Map.of("WEFT_RANK", "4", "WEFT_WORLD_SIZE", "4"))).hasMessageContaining("outside");
    assertThatThrownBy(() -> ClusterEnv.host(Map.of("WORLD_SIZE", "6", "PET_NNODES", "2", "PET_NPROC_PER_NODE", "2")))
        .hasMessageContaining("WORLD_SIZE=6").hasMessageContaining("PET_NPROC_PER_NODE");
    assertThatThrownBy(() -> ClusterEnv.host(Map.of("PET_NNODES", "2", "PET_NODE_RANK", "2"))).hasMessageContaining("outside 0..1");
  }

  @Test
  void emptyEnvironmentIsOneRank() {
    assertThat(WorkerIdentity.fromEnv(Map.of())).isEqualTo(new WorkerIdentity(0, 1, 0, "127.0.0.1", 29500, 0, 1, null));
  }
}
