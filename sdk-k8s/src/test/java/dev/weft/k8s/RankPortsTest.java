package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.k8s.render.RankPorts;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import dev.weft.spec.SpecException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The NetworkPolicy, container ports, Service and env all name the ports {@link RankPorts} derives, and only those. */
class RankPortsTest {
  /** Every env variable that names a port the ranks dial or serve on. */
  private static final List<String> PORT_VARIABLES = List.of("MASTER_PORT", "PET_MASTER_PORT", "WEFT_METRICS_PORT");

  static K8sSpec spec(int perNode, String... overrides) {
    List<String> all = new ArrayList<>(List.of("deployment.nodes=2", "deployment.procsPerNode=" + perNode, "parallel.dp=" + 2 * perNode,
        "train.globalBatch=" + 8 * perNode));
    all.addAll(List.of(overrides));
    return TestSpecs.tiny(all.toArray(String[]::new));
  }

  /** Checks one render against its derived ports; the shared body of the example and property tests. */
  static void assertPortsFromOnePlace(K8sSpec ks, Target t) {
    RankPorts ports = RankPorts.of(ks);
    Rendered r = Renderer.render(ks, t);
    assertThat(new HashSet<>(ports.listening())).as("distinct").hasSize(ports.listening().size());

    JsonNode ingress = Yaml.tree(r.only("NetworkPolicy").body()).path("spec").path("ingress");
    assertThat(ingress.path(0).path("ports").toString()).as("the run's own pods: every TCP port (Gloo's are ephemeral)")
        .isEqualTo("[{\"protocol\":\"TCP\"}]");
    List<Integer> monitored = new ArrayList<>();
    for (JsonNode p : ingress.path(1).path("ports")) monitored.add(p.path("port").asInt());
    assertThat(monitored).as("the monitoring namespace: exactly the metrics ports").isEqualTo(ports.metricsPorts());

    for (Manifest m : r.manifests()) {
      for (JsonNode containers : Yaml.tree(m.body()).findValues("containers")) {
        for (JsonNode c : containers) {
          List<Integer> declared = new ArrayList<>();
          for (JsonNode p : c.path("ports")) declared.add(p.path("containerPort").asInt());
          assertThat(declared).as("container ports of %s", m.kind()).isEqualTo(ports.listening());
        }
      }
    }
    for (JsonNode servicePorts : r.manifests().stream().filter(m -> m.kind().equals("Service"))
        .map(m -> Yaml.tree(m.body()).path("spec").path("ports")).toList()) {
      for (JsonNode p : servicePorts) assertThat(p.path("port").asInt()).isEqualTo(ports.store());
    }
    for (var pod : PodEnvironment.pods(r, t)) {
      Set<Integer> named = new HashSet<>();
      for (String v : PORT_VARIABLES) if (pod.env().containsKey(v)) named.add(Integer.parseInt(pod.env().get(v)));
      String rdzv = pod.env().get("PET_RDZV_ENDPOINT");
      if (rdzv != null) named.add(Integer.parseInt(rdzv.substring(rdzv.lastIndexOf(':') + 1)));
      assertThat(ports.listening()).as("ports %s's env names", pod.hostname()).containsAll(named);
      assertThat(named).as("the store and metrics ports are named").contains(ports.store(), ports.metrics());
    }
  }

  @ParameterizedTest
  @EnumSource(Target.class)
  void everyTargetUsesTheDerivedPorts(Target t) {
    assertPortsFromOnePlace(spec(1), t);
    assertPortsFromOnePlace(spec(2, "metrics.port=9400"), t);
  }

  @Test
  void elasticPyTorchJobRendezvousOnTheStorePort() {
    K8sSpec ks = TestSpecs.elastic("deployment.port=29511");
    assertPortsFromOnePlace(ks, Target.PYTORCHJOB);
    JsonNode policy = Yaml.tree(Renderer.render(ks, Target.PYTORCHJOB).only("PyTorchJob").body()).path("spec").path("elasticPolicy");
    assertThat(policy.path("rdzvPort").asInt()).isEqualTo(29511);
  }

  @Test
  void trainJobTakesOnlyTheTorchPluginsPort() {
    assertPortsFromOnePlace(spec(1, "deployment.port=29500"), Target.TRAINJOB);
    assertThatThrownBy(() -> Renderer.render(spec(1, "deployment.port=29400"), Target.TRAINJOB)).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("deployment.port: 29400: Kubeflow Trainer's torch plugin always sets PET_MASTER_PORT=29500");
  }

  @Test
  void metricsPortsMayNotOverlapTheStore() {
    assertThatThrownBy(() -> RankPorts.of(spec(2, "metrics.port=29499"))).isInstanceOf(SpecException.class)
        .hasMessage("metrics.port: 29499 (local ranks serve on 29499..29500) overlaps deployment.port 29500; move one of them");
  }

  /** Any store port, metrics port and processes per pod: derived, distinct, and the same everywhere they appear. */
  @Property(tries = 60)
  void portsComeFromOnePlace(@ForAll @IntRange(min = 1025, max = 65535) int store, @ForAll @IntRange(min = 1025, max = 65000) int metrics,
                             @ForAll @IntRange(min = 1, max = 3) int perNode, @ForAll("fixedTargets") Target t) {
    int port = t == Target.TRAINJOB ? 29500 : store;
    boolean overlaps = port >= metrics && port < metrics + perNode;
    if (overlaps) {
      assertThatThrownBy(() -> Renderer.render(spec(perNode, "deployment.port=" + port, "metrics.port=" + metrics), t))
          .hasMessageStartingWith("metrics.port:");
    } else {
      assertPortsFromOnePlace(spec(perNode, "deployment.port=" + port, "metrics.port=" + metrics), t);
    }
  }

  @net.jqwik.api.Provide
  net.jqwik.api.Arbitrary<Target> fixedTargets() { return net.jqwik.api.Arbitraries.of(Target.values()); }
}
