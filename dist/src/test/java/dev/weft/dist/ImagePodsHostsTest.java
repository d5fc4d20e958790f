package dev.weft.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.checkpoint.CheckpointLayout;
import dev.weft.k8s.PodEnvironment;
import dev.weft.k8s.PodEnvironment.Pod;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.render.WorkerPod;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.spec.K8sSpecLoader;
import dev.weft.metrics.MetricsJson;
import dev.weft.testing.NetHosts;
import dev.weft.testing.Required;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The image Jib builds, run as Kubernetes would run its pods, with no container runtime: the image
 * tarball's layers unpacked into a root file system, and each rendered pod in its own network namespace,
 * chrooted into that root mounted read-only, as UID 1000, with the manifest's volumes (the spec
 * ConfigMap at /etc/weft, scratch at /tmp, /dev/shm, checkpoints), exactly the environment of the image
 * config, the manifest and the target's controller ({@link PodEnvironment}), and the container's
 * command and args. The image is the one {@code mvn -pl dist -am package} builds when the base from
 * {@code dist/scripts/base-image.sh build} is cached (profile image-test).
 */
@Tag("hosts")
@Tag("slow")
class ImagePodsHostsTest {
  private static final Path IMAGE = Path.of(System.getProperty("weft.image.test.tar", "target/weft-image-test.tar"));
  private static final Path BASE = Path.of(System.getProperty("weft.image.test.base", "/nonexistent"));
  private static final Path SPEC = Path.of(System.getProperty("weft.samples.dir", "../samples/configs"), "gpt-tiny.yaml");
  @TempDir static Path shared;
  static ImageRoot image;

  @BeforeAll
  static void unpackTheImage() throws IOException {
    assumeTrue(NetHosts.available(), NetHosts.unavailableReason());
    Required.that(Files.isRegularFile(IMAGE), "no image tarball at " + IMAGE + " (its base "
        + System.getProperty("weft.image.test.base", "$WEFT_CACHE_DIR/base/weft-base.tar") + (Files.isRegularFile(BASE) ? " is cached" : " is missing")
        + "): build the base with dist/scripts/base-image.sh build, then mvn -pl dist -am package builds the image on it");
    long t0 = System.nanoTime();
    image = ImageRoot.unpack(IMAGE, shared);
    System.out.printf("image %s (%d MB) unpacked in %.1f s%n", IMAGE, Files.size(IMAGE) >> 20, (System.nanoTime() - t0) / 1e9);
  }

  @AfterAll
  static void removeTheRoot() throws IOException {
    if (image != null) ImageRoot.deleteTree(image.root());
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(value = Target.class, names = {"JOB", "PYTORCHJOB"})
  void twoPodsFromTheImageTrainOneRun(Target target, @TempDir Path dir) throws Exception {
    assertThat(image.user()).isEqualTo("1000:1000");
    long t0 = System.nanoTime();
    try (NetHosts hosts = NetHosts.create(2)) {
      Pods pods = startPods(target, dir, hosts, List.of("train.steps=3"));
      List<Integer> codes = hosts.awaitAll(Duration.ofMinutes(6));
      assertThat(codes).as(pods.tails()).containsExactly(0, 0);
      var s = MetricsJson.readSummary(pods.runDir());
      assertThat(s.worldSize()).isEqualTo(2);
      assertThat(s.steps()).isEqualTo(3);
      assertThat(s.replicasConsistent()).as("replicas_consistent").isTrue();
      assertThat(Files.getAttribute(pods.runDir().resolve("summary.json"), "unix:uid")).as("written as the image's user").isEqualTo(1000);
      for (Path sc : pods.scratch()) {
        assertThat(Files.exists(sc.resolve("weft-cache"))).as("libtorch extracted into WEFT_CACHE_DIR on scratch: " + sc).isTrue();
      }
      System.out.printf("%s: 2 pods from the image trained in %.1f s%n", target, (System.nanoTime() - t0) / 1e9);
    }
  }

  /**
   * The kubelet's SIGTERM to one pod of a fixed two-pod PyTorchJob (the container's main process, the image's
   * entrypoint) at a random step, with {@code checkpoint.every: 1000}: both pods save the step reached on the shared
   * checkpoint claim and exit 0, so the controller counts neither as failed; the summary says preempted.
   */
  @Test
  void sigtermToOnePodSavesOnTheClaimAndBothPodsExitZero(@TempDir Path dir) throws Exception {
    try (NetHosts hosts = NetHosts.create(2)) {
      Pods pods = startPods(Target.PYTORCHJOB, dir, hosts, List.of("train.steps=100000", "checkpoint.every=1000", "train.logEvery=1"));
      int at = ThreadLocalRandom.current().nextInt(2, 6);
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (!Files.readString(pods.logs().get(0)).contains("step " + at + "/")) {
        assertThat(System.nanoTime() < deadline && pods.processes().get(1).isAlive()).as("no step " + at + "\n" + pods.tails()).isTrue();
        Thread.sleep(200);
      }
      long t0 = System.nanoTime();
      long main = pods.processes().get(1).pid(); // ip netns exec, unshare, sh, chroot, env, sh and bin/weft all exec: the JVM
      new ProcessBuilder("kill", "-TERM", String.valueOf(main)).start().waitFor(10, TimeUnit.SECONDS);
      List<Integer> codes = hosts.awaitAll(Duration.ofMinutes(3));
      double exitS = (System.nanoTime() - t0) / 1e9;
      assertThat(codes).as(pods.tails()).containsExactly(0, 0);
      var s = MetricsJson.readSummary(pods.runDir());
      assertThat(s.status()).isEqualTo("preempted");
      assertThat(s.steps()).isGreaterThanOrEqualTo(at);
      String step = CheckpointLayout.stepDirName(s.steps());
      try (var files = Files.walk(pods.claim())) {
        assertThat(files.filter(f -> f.getFileName().toString().equals("manifest.json") && f.getParent().getFileName().toString().equals(step)))
            .as("the emergency checkpoint of step " + s.steps() + " on the claim").hasSize(1);
      }
      assertThat(Files.readString(pods.logs().get(1))).contains("SIGTERM: training stops at the next step boundary after an emergency checkpoint");
      System.out.printf("PYTORCHJOB: SIGTERM to pod 1 at step %d, both pods exit 0 after %.1f s with step %d on the claim%n", at, exitS, s.steps());
    }
  }

  /**
   * The same through an elastic three-pod PyTorchJob ({@code elasticPolicy} 2–3 replicas, c10d on pod 0): SIGTERM
   * to pod 2's entrypoint at a random step of the three-node generation is a planned leave: pod 2 exits 0, pods 0
   * and 1 re-form from the emergency checkpoint at once and finish, with {@code restarts} 0 and every step once in
   * the run record on the shared claim.
   */
  @Test
  void sigtermToOneElasticPodOfThreeIsAPlannedLeave(@TempDir Path dir) throws Exception {
    int steps = 24;
    try (NetHosts hosts = NetHosts.create(3)) {
      Pods pods = startPods(Target.PYTORCHJOB, dir, hosts, List.of("deployment.nodes=2:3", "parallel.dp=3", "elastic.standby=0", "elastic.failureTimeoutSeconds=20",
          "elastic.joinWindowSeconds=30",
          "train.globalBatch=24", "parallel.microBatches=2", "train.steps=" + steps, "checkpoint.every=1000", "train.logEvery=1"));
      int at = ThreadLocalRandom.current().nextInt(3, 7);
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(6);
      // rank 0's progress, once pod 2 is in a generation of three
      while (!(Files.readString(pods.logs().get(2)).contains("mesh dp=3") && pods.logged("step " + at + "/" + steps))) {
        for (Process p : pods.processes()) assertThat(p.isAlive()).as("a pod ended early\n" + pods.tails()).isTrue();
        assertThat(System.nanoTime() < deadline).as("step " + at + " on three pods\n" + pods.tails()).isTrue();
        Thread.sleep(200);
      }
      long t0 = System.nanoTime();
      new ProcessBuilder("kill", "-TERM", String.valueOf(pods.processes().get(2).pid())).start().waitFor(10, TimeUnit.SECONDS);
      assertThat(pods.processes().get(2).waitFor(2, TimeUnit.MINUTES)).as("the leaving pod exits\n" + pods.tails()).isTrue();
      double leftS = (System.nanoTime() - t0) / 1e9;
      assertThat(pods.processes().get(2).exitValue()).as(pods.tails()).isZero();
      List<Integer> codes = hosts.awaitAll(Duration.ofMinutes(5));
      assertThat(codes).as(pods.tails()).containsExactly(0, 0, 0);
      Path record = runRecord(pods.claim());
      JsonNode s = MetricsJson.MAPPER.readTree(record.resolve("summary.json").toFile());
      assertThat(s.get("status").asText()).isEqualTo("completed");
      assertThat(s.get("restarts").asInt()).as("a planned leave is no failure").isZero();
      assertThat(MetricsJson.MAPPER.readerFor(JsonNode.class).<JsonNode>readValues(record.resolve("metrics.jsonl").toFile()).readAll()
          .stream().filter(n -> n.has("loss")).mapToLong(n -> n.get("step").asLong()).toArray()).as("every step once")
          .containsExactly(LongStream.rangeClosed(1, steps).toArray());
      JsonNode after = null;
      for (JsonNode g : s.path("elastic").path("generations")) if ("leave".equals(g.path("cause").asText())) after = g;
      assertThat(after).as("a generation after the planned leave: " + s.path("elastic") + "\n" + pods.tails()).isNotNull();
      assertThat(after.get("world_size").asInt()).isEqualTo(2);
      for (int i = 0; i < 3; i++) { // what kubectl logs shows: each agent's own lines, beside its workers'
        String log = Files.readString(pods.logs().get(i));
        assertThat(log).as("pod " + i + "'s log").contains("[agent ").contains("] generation ")
            .contains(i < 2 ? "] training completed after " : "weft: done — left the run after generation ");
      }
      System.out.printf("PYTORCHJOB elastic: SIGTERM to pod 2 at step >= %d, it exited 0 after %.1f s; pods 0 and 1 finished %d steps%n",
          at, leftS, steps);
    }
  }

  /** The run record's directory on the claim ({@code run/} beside the checkpoints), or null while there is none. */
  private static Path runRecord(Path claim) throws IOException {
    try (var files = Files.walk(claim)) {
      return files.filter(f -> f.getFileName().toString().equals("metrics.jsonl") && f.getParent().getFileName().toString().equals("run"))
          .map(Path::getParent).findFirst().orElse(null);
    }
  }

  /** The pods of a run started on {@code hosts}: their processes, logs, scratch volumes, the shared checkpoint claim. */
  private record Pods(List<Process> processes, List<Path> logs, List<Path> scratch, Path claim) {
    Path runDir() { return scratch.get(0).resolve(WorkerPod.RUN_DIR.substring(WorkerPod.SCRATCH_PATH.length() + 1)); }

    String tails() { return logs.stream().map(l -> NetHosts.tail(l, 30)).collect(Collectors.joining("\n")); }

    boolean logged(String text) throws IOException {
      for (Path l : logs) if (Files.isRegularFile(l) && Files.readString(l).contains(text)) return true;
      return false;
    }
  }

  /** Renders the tiny spec (two pods of one process) for {@code target} and starts each pod on its host. */
  private static Pods startPods(Target target, Path dir, NetHosts hosts, List<String> sets) throws Exception {
    List<String> all = new ArrayList<>(List.of("deployment.nodes=2", "deployment.procsPerNode=1", "parallel.dp=2",
        "model.config.layers=1", "model.config.hidden=32", "model.config.heads=2", "data.seqLen=16"));
    all.addAll(sets);
    K8sSpec ks = K8sSpecLoader.load(SPEC, all);
    Rendered r = Renderer.render(ks, target);
    Path specDir = Files.createDirectories(dir.resolve("configmap"));
    Files.writeString(specDir.resolve("spec.yaml"), PodEnvironment.specYaml(r));
    Path claim = writable(dir.resolve("claim")); // one claim for both pods, as a ReadWriteMany volume
    List<Pod> pods = PodEnvironment.onHosts(r, target, hosts);
    List<Process> processes = new ArrayList<>();
    List<Path> logs = new ArrayList<>();
    List<Path> scratch = new ArrayList<>();
    for (int i = 0; i < pods.size(); i++) {
      Pod p = pods.get(i);
      Path podDir = Files.createDirectories(dir.resolve(p.hostname()));
      scratch.add(writable(podDir.resolve("scratch")));
      Map<String, Path> volumes = new LinkedHashMap<>();
      volumes.put(WorkerPod.SPEC_DIR, specDir);
      volumes.put("/dev/shm", writable(podDir.resolve("shm")));
      volumes.put(WorkerPod.SCRATCH_PATH, scratch.get(i));
      volumes.put(ks.deployment().checkpointStorage().mountPath(), claim);
      Map<String, String> env = ChrootPod.containerEnv(image, p.env(), p.hostname());
      env.put("OMP_WAIT_POLICY", "PASSIVE"); // a loaded test machine, not the controller
      env.put("OMP_NUM_THREADS", "1");
      ChrootPod pod = new ChrootPod(p.hostname(), image, volumes, List.of(WorkerPod.SPEC_DIR), env, p.command());
      Path log = dir.resolve(p.hostname() + ".log");
      logs.add(log);
      processes.add(hosts.start(i, pod.script(podDir), Map.of(), log));
    }
    return new Pods(processes, logs, scratch, claim);
  }

  /** A volume directory the pod's user (UID 1000, as fsGroup makes it) can write. */
  private static Path writable(Path p) throws IOException {
    Files.createDirectories(p);
    ImageRoot.sh(List.of("chown", "1000:1000", p.toString()));
    return p;
  }
}
