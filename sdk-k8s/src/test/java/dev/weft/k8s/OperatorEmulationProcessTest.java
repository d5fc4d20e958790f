package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.k8s.PodEnvironment.Pod;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.render.WorkerPod;
import dev.weft.metrics.MetricsJson;
import dev.weft.testing.NetHosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each fixed-size Kubernetes target emulated on real hosts: one network namespace per pod, the pod's command
 * line from the rendered manifest, exactly the env its controller injects plus the manifest's own (POD_IP
 * = the namespace's address), and pod DNS names resolved per namespace. Nothing but that env tells the
 * pods who they are.
 */
@Tag("hosts")
@Tag("slow")
class OperatorEmulationProcessTest {
  @TempDir Path dir;

  @BeforeAll
  static void needsNamespaces() { assumeTrue(NetHosts.available(), NetHosts.unavailableReason()); }

  static Stream<Arguments> targets() {
    return Stream.of(Target.values()).flatMap(t -> Stream.of(Arguments.of(t, 1), Arguments.of(t, 2)));
  }

  @ParameterizedTest(name = "{0}, {1} process(es) per pod")
  @MethodSource("targets")
  void twoPodsOnTwoHostsTrainOneRun(Target target, int perPod) throws Exception {
    var ks = TestSpecs.tiny("deployment.nodes=2", "deployment.procsPerNode=" + perPod, "parallel.dp=" + 2 * perPod,
        "model.config.layers=1", "model.config.hidden=32", "model.config.heads=2", "data.seqLen=16", "train.steps=3");
    Rendered r = Renderer.render(ks, target);
    Path spec = dir.resolve("spec.yaml");
    Files.writeString(spec, PodEnvironment.specYaml(r));
    try (NetHosts hosts = NetHosts.create(2)) {
      List<Pod> pods = PodEnvironment.onHosts(r, target, hosts);
      List<Path> logs = new ArrayList<>();
      for (int i = 0; i < pods.size(); i++) {
        Pod p = pods.get(i);
        assertThat(p.command().subList(0, 2)).containsExactly("weft", "worker");
        List<String> args = new ArrayList<>(p.command().subList(1, p.command().size()));
        String runDir = dir.resolve("run-" + i).toString();
        args.replaceAll(a -> a.equals(WorkerPod.SPEC_FILE) ? spec.toString() : a.equals(WorkerPod.RUN_DIR) ? runDir : a);
        args.addAll(List.of("--timeout", "150"));
        Path log = dir.resolve(p.hostname() + ".log");
        logs.add(log);
        hosts.startWeft(i, args, p.env(), log);
      }
      List<Integer> codes = hosts.awaitAll(Duration.ofMinutes(4));
      String out = logs.stream().map(l -> NetHosts.tail(l, 25)).collect(Collectors.joining("\n"));
      assertThat(codes).as(out).containsExactly(0, 0);
      var s = MetricsJson.readSummary(dir.resolve("run-0"));
      assertThat(s.worldSize()).isEqualTo(2 * perPod);
      assertThat(s.steps()).isEqualTo(3);
      assertThat(s.replicasConsistent()).as("replicas_consistent").isTrue();
      assertThat(Files.exists(dir.resolve("run-1/summary.json"))).as("only rank 0 (on pod 0) writes the summary").isFalse();
    }
  }
}
