package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.k8s.PodEnvironment.Pod;
import dev.weft.k8s.trainer.RuntimeRenderer;
import dev.weft.k8s.trainer.RuntimeTrainJob;
import dev.weft.k8s.yaml.Yaml;
import dev.weft.launch.JavaCommand;
import dev.weft.metrics.MetricsJson;
import dev.weft.testing.NetHosts;
import dev.weft.tracking.progress.StatusServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TrainJob of two nodes on a Weft runtime rendered for one node: each {@code node} pod runs the runtime's own command
 * line ({@code /bin/sh -c SCRIPT}) in its own network namespace with the container's env plus exactly what Trainer
 * v2.3's torch plugin injects (pkg/runtime/framework/plugins/torch/torch.go, EnforceMLPolicy: PET_NNODES = numNodes,
 * PET_NPROC_PER_NODE = "auto" as the TrainJob sets neither numProcPerNode nor resourcesPerNode, PET_NODE_RANK = the
 * completion index, PET_MASTER_ADDR = TRAINJOB-node-0-0.TRAINJOB, PET_MASTER_PORT = 29500; see PodEnvironment).
 * {@code weft} on the pods' PATH is this build's launcher. The script turns the TrainJob's size into the mesh. The pods
 * also get what Trainer's TrainJobStatus plugin injects ({@link PodEnvironment#withTrainJobStatus}); a third host plays
 * the controller's status Service (a TLS server with a CA of its own), and rank 0's progress must reach it.
 */
@Tag("hosts")
@Tag("slow")
class RuntimeEmulationProcessTest {
  @TempDir Path dir;

  @Test
  void aTwoNodeTrainJobTrainsOnARuntimeRenderedForOne() throws Exception {
    assumeTrue(NetHosts.available(), NetHosts.unavailableReason());
    var ks = TestSpecs.tiny("name=tiny-rt", "deployment.nodes=1", "parallel.dp=1", "train.globalBatch=4", "model.config.layers=1",
        "model.config.hidden=32", "model.config.heads=2", "data.seqLen=16", "train.steps=3");
    JsonNode runtime = Yaml.tree(RuntimeRenderer.render(ks).only("TrainingRuntime").body());
    assertThat(runtime.path("spec").path("mlPolicy").path("numNodes").asInt()).isEqualTo(1);
    JsonNode trainJob = Yaml.tree(RuntimeTrainJob.of("sft", "default", "tiny-rt", false, 2, null, null));
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path weft = bin.resolve("weft");
    List<String> java = JavaCommand.of(List.of("dev.weft.cli.WeftMain"));
    Files.writeString(weft, "#!/bin/sh\nexec " + java.stream().map(a -> "'" + a.replace("'", "'\\''") + "'")
        .collect(Collectors.joining(" ")) + " \"$@\"\n");
    Files.setPosixFilePermissions(weft, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path controller = Files.createDirectories(dir.resolve("controller")), mounted = Files.createDirectories(dir.resolve("trainer-secrets"));
    Process statusServer = null;
    try (NetHosts hosts = NetHosts.create(3)) {
      statusServer = startStatusServer(hosts, controller);
      Files.copy(controller.resolve("status-ca.crt"), mounted.resolve("ca.crt"));
      Files.writeString(mounted.resolve("token"), "projected-sa-token\n");
      List<String> ips = List.of(hosts.address(0), hosts.address(1));
      List<Pod> pods = PodEnvironment.withTrainJobStatus(PodEnvironment.trainJob(trainJob, runtime), "default", "sft", mounted);
      assertThat(pods).hasSize(2);
      List<Path> logs = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        Pod p = pods.get(i);
        hosts.resolve(p.hostname(), i);
        hosts.resolve(p.fqdn(), i);
        assertThat(p.env()).containsEntry("PET_NPROC_PER_NODE", "auto").containsEntry("PET_NNODES", "2")
            .containsEntry("PET_MASTER_ADDR", "sft-node-0-0.sft").containsEntry("PET_MASTER_PORT", "29500");
        String ip = ips.get(i);
        Map<String, String> env = new LinkedHashMap<>(p.env());
        env.replaceAll((k, v) -> "<pod ip>".equals(v) ? ip : v); // the downward API's status.podIP
        Path scratch = Files.createDirectories(dir.resolve("pod-" + i));
        env.put("TMPDIR", scratch.toString());
        env.put("PATH", bin + ":" + System.getenv("PATH"));
        Path log = dir.resolve(p.hostname() + ".log");
        logs.add(log);
        assertThat(p.command().subList(0, 2)).containsExactly("/bin/sh", "-c");
        hosts.start(i, p.command(), env, log);
      }
      List<Integer> codes = hosts.awaitAll(Duration.ofMinutes(4));
      String out = logs.stream().map(l -> NetHosts.tail(l, 25)).collect(Collectors.joining("\n"));
      assertThat(codes).as(out).containsExactly(0, 0);
      var s = MetricsJson.readSummary(dir.resolve("pod-0/run"));
      assertThat(s.worldSize()).as("dp follows the TrainJob's numNodes").isEqualTo(2);
      assertThat(s.steps()).isEqualTo(3);
      assertThat(s.replicasConsistent()).isTrue();

      List<StatusServer.Post> posts = StatusServer.read(controller.resolve(StatusServer.POSTS));
      assertThat(posts).as("rank 0's progress reached the status Service\n%s", out).isNotEmpty()
          .allSatisfy(p -> {
            assertThat(p.path()).isEqualTo("/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/sft/status");
            assertThat(p.auth()).isEqualTo("Bearer projected-sa-token");
          });
      JsonNode last = posts.get(posts.size() - 1).body().path("trainerStatus");
      assertThat(last.path("progressPercentage").asInt()).isEqualTo(100);
      assertThat(last.path("metrics").toString()).contains("{\"name\":\"current_step\",\"value\":\"3\"}");
    } finally {
      if (statusServer != null) statusServer.destroyForcibly();
    }
  }

  /** The Trainer controller's status server on host 2 at the Service name and port the plugin's URL names. */
  private static Process startStatusServer(NetHosts hosts, Path dir) throws Exception {
    hosts.resolve(PodEnvironment.STATUS_SERVICE, 2);
    Process p = new ProcessBuilder(hosts.command(2, JavaCommand.of(List.of(StatusServer.class.getName(), dir.toString(),
        Integer.toString(PodEnvironment.STATUS_PORT), PodEnvironment.STATUS_SERVICE))))
        .redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
    long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!Files.exists(dir.resolve("ready"))) {
      if (!p.isAlive() || System.nanoTime() > end) throw new AssertionError("status server did not start\n" + NetHosts.tail(dir.resolve("server.log"), 20));
      Thread.sleep(50);
    }
    return p;
  }
}
