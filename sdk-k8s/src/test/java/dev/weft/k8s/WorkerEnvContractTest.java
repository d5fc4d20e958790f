package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.k8s.PodEnvironment.Pod;
import dev.weft.comm.ClusterEnv;
import dev.weft.comm.HostPlan;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.spec.K8sSpec;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/** Every target gives each worker a node rank, the world size and where rank 0 listens. */
class WorkerEnvContractTest {

  /** What the pod's host process reads (sdk-api's one contract, ClusterEnv). */
  static HostPlan host(Pod p) { return ClusterEnv.host(p.env()); }

  static String master(Pod p) { return host(p).masterAddr() + ":" + host(p).masterPort(); }

  @ParameterizedTest
  @EnumSource(Target.class)
  void fixedSizeRunsGiveEveryPodADistinctRankTheWorldSizeAndRankZerosAddress(Target t) {
    K8sSpec ks = TestSpecs.tiny("deployment.nodes=2", "parallel.dp=4", "deployment.procsPerNode=2");
    List<Pod> pods = PodEnvironment.pods(Renderer.render(ks, t), t);

    assertThat(pods).hasSize(2);
    assertThat(pods.stream().map(p -> host(p).nodeRank())).containsExactly(0, 1);
    for (Pod p : pods) {
      assertThat(host(p).worldSize()).as("world size on %s", p.hostname()).isEqualTo(4);
      assertThat(host(p).nprocPerNode()).isEqualTo(2);
      assertThat(host(p).nodeAddr()).as("the pod's own IP from the downward API").isEqualTo(p.env().get("POD_IP")).startsWith("10.0.0.");
      assertThat(ClusterEnv.isRank(p.env())).as("a pod is a host that starts its ranks").isFalse();
    }
    assertThat(pods.stream().map(p -> host(p).nodeAddr()).distinct()).hasSize(2);
    Pod rank0 = pods.stream().filter(p -> host(p).nodeRank() == 0).findFirst().orElseThrow();
    String masterHost = host(rank0).masterAddr();
    assertThat(masterHost).as("rank 0's address is its own DNS name").isIn(rank0.hostname(), rank0.fqdn());
    if (t == Target.TRAINJOB) assertThat(host(rank0).masterPort()).isEqualTo(29500);
    assertThat(pods.stream().map(WorkerEnvContractTest::master).collect(Collectors.toSet())).as("all agree on the master").hasSize(1);
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

  @Test
  void elasticPyTorchJobWithEtcdPointsEveryPodAtTheEtcdService() {
    K8sSpec ks = TestSpecs.elastic("elastic.rdzvBackend=etcd", "elastic.rdzvEndpoint=weft-etcd:2379");
    for (Pod p : PodEnvironment.pods(Renderer.render(ks, Target.PYTORCHJOB), Target.PYTORCHJOB)) {
      assertThat(p.env()).containsEntry("PET_RDZV_BACKEND", "etcd").containsEntry("PET_RDZV_ENDPOINT", "weft-etcd:2379");
    }
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
