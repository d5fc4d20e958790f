package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.k8s.PodEnvironment.Pod;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.spec.K8sSpec;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/** Every target gives each worker a node rank, the world size and where rank 0 listens. */
class WorkerEnvContractTest {

  /** The node rank a worker derives: RANK, else PET_NODE_RANK, else JOB_COMPLETION_INDEX. */
  static int nodeRank(Map<String, String> env) {
    for (String k : List.of("RANK", "PET_NODE_RANK", "JOB_COMPLETION_INDEX")) {
      if (env.containsKey(k)) return Integer.parseInt(env.get(k));
    }
    throw new AssertionError("no node rank source in " + env.keySet());
  }

  static int worldSize(Map<String, String> env) {
    if (env.containsKey("WORLD_SIZE")) return Integer.parseInt(env.get("WORLD_SIZE"));
    return Integer.parseInt(env.get("PET_NNODES")) * Integer.parseInt(env.get("PET_NPROC_PER_NODE"));
  }

  static String master(Map<String, String> env) {
    String addr = env.getOrDefault("MASTER_ADDR", env.get("PET_MASTER_ADDR"));
    String port = env.getOrDefault("MASTER_PORT", env.get("PET_MASTER_PORT"));
    assertThat(addr).as("MASTER_ADDR or PET_MASTER_ADDR").isNotBlank();
    assertThat(port).as("MASTER_PORT or PET_MASTER_PORT").matches("\\d+");
    return addr + ":" + port;
  }

  @ParameterizedTest
  @EnumSource(Target.class)
  void fixedSizeRunsGiveEveryPodADistinctRankTheWorldSizeAndRankZerosAddress(Target t) {
    K8sSpec ks = TestSpecs.tiny("deployment.nodes=2", "parallel.dp=4", "deployment.procsPerNode=2");
    List<Pod> pods = PodEnvironment.pods(Renderer.render(ks, t), t);

    assertThat(pods).hasSize(2);
    assertThat(pods.stream().map(p -> nodeRank(p.env()))).containsExactly(0, 1);
    for (Pod p : pods) {
      assertThat(worldSize(p.env())).as("world size on %s", p.hostname()).isEqualTo(4);
      assertThat(p.env()).containsKeys("PET_NPROC_PER_NODE").containsEntry("PET_NPROC_PER_NODE", "2");
    }
    Pod rank0 = pods.stream().filter(p -> nodeRank(p.env()) == 0).findFirst().orElseThrow();
    String masterHost = master(rank0.env()).split(":")[0];
    assertThat(masterHost).as("rank 0's address is its own DNS name").isIn(rank0.hostname(), rank0.fqdn());
    assertThat(pods.stream().map(p -> master(p.env())).collect(Collectors.toSet())).as("all agree on the master").hasSize(1);
  }

  @Test
  void elasticPyTorchJobWorkersRendezvousThroughWorkerZero() {
    K8sSpec ks = TestSpecs.elastic();
    List<Pod> pods = PodEnvironment.pods(Renderer.render(ks, Target.PYTORCHJOB), Target.PYTORCHJOB);

    assertThat(pods).hasSize(4);
    for (Pod p : pods) {
      assertThat(p.env()).containsEntry("PET_NNODES", "1:4").containsEntry("PET_RDZV_BACKEND", "c10d")
          .containsEntry("PET_RDZV_ENDPOINT", "gpt-tiny-worker-0:29500").containsEntry("PET_MAX_RESTARTS", "3")
          .containsEntry("MASTER_ADDR", "gpt-tiny-worker-0").containsEntry("MASTER_PORT", "29500");
    }
    assertThat(pods.get(0).hostname()).isEqualTo("gpt-tiny-worker-0");
  }

  @ParameterizedTest
  @EnumSource(Target.class)
  void workersGetTheNcclKnobsAndTheUsersEnv(Target t) {
    List<Pod> pods = PodEnvironment.pods(Renderer.render(TestSpecs.tiny(), t), t);
    for (Pod p : pods) {
      assertThat(p.env()).containsEntry("NCCL_DEBUG", "WARN").containsEntry("WEFT_LOG", "info")
          .containsEntry("HOME", "/tmp").containsEntry("WEFT_METRICS_PORT", "9090");
    }
  }
}
