package dev.weft.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
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
  private static final Path SPEC = Path.of(System.getProperty("weft.samples.dir", "../samples/configs"), "gpt-tiny.yaml");
  @TempDir static Path shared;
  static ImageRoot image;

  @BeforeAll
  static void unpackTheImage() throws IOException {
    assumeTrue(NetHosts.available(), NetHosts.unavailableReason());
    assumeTrue(Files.isRegularFile(IMAGE), "no image tarball at " + IMAGE + ": build the base with dist/scripts/base-image.sh build, "
        + "then mvn -pl dist -am package (the image-test profile builds it when the base is cached)");
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
    K8sSpec ks = K8sSpecLoader.load(SPEC, List.of("deployment.nodes=2", "deployment.procsPerNode=1", "parallel.dp=2",
        "model.config.layers=1", "model.config.hidden=32", "model.config.heads=2", "data.seqLen=16", "train.steps=3"));
    Rendered r = Renderer.render(ks, target);
    Path specDir = Files.createDirectories(dir.resolve("configmap"));
    Files.writeString(specDir.resolve("spec.yaml"), PodEnvironment.specYaml(r));
    long t0 = System.nanoTime();
    try (NetHosts hosts = NetHosts.create(2)) {
      List<Pod> pods = PodEnvironment.onHosts(r, target, hosts);
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
        volumes.put(ks.deployment().checkpointStorage().mountPath(), writable(podDir.resolve("checkpoints")));
        Map<String, String> env = ChrootPod.containerEnv(image, p.env(), p.hostname());
        env.put("OMP_WAIT_POLICY", "PASSIVE"); // a loaded test machine, not the controller
        env.put("OMP_NUM_THREADS", "1");
        ChrootPod pod = new ChrootPod(p.hostname(), image, volumes, List.of(WorkerPod.SPEC_DIR), env, p.command());
        Path log = dir.resolve(p.hostname() + ".log");
        logs.add(log);
        hosts.start(i, pod.script(podDir), Map.of(), log);
      }
      List<Integer> codes = hosts.awaitAll(Duration.ofMinutes(6));
      String out = logs.stream().map(l -> NetHosts.tail(l, 30)).collect(Collectors.joining("\n"));
      assertThat(codes).as(out).containsExactly(0, 0);
      Path run = scratch.get(0).resolve(WorkerPod.RUN_DIR.substring(WorkerPod.SCRATCH_PATH.length() + 1));
      var s = MetricsJson.readSummary(run);
      assertThat(s.worldSize()).isEqualTo(2);
      assertThat(s.steps()).isEqualTo(3);
      assertThat(s.replicasConsistent()).as("replicas_consistent").isTrue();
      assertThat(Files.getAttribute(run.resolve("summary.json"), "unix:uid")).as("written as the image's user").isEqualTo(1000);
      for (Path sc : scratch) {
        assertThat(Files.exists(sc.resolve("weft-cache"))).as("libtorch extracted into WEFT_CACHE_DIR on scratch: " + sc).isTrue();
      }
      System.out.printf("%s: 2 pods from the image trained in %.1f s%n", target, (System.nanoTime() - t0) / 1e9);
    }
  }

  /** A volume directory the pod's user (UID 1000, as fsGroup makes it) can write. */
  private static Path writable(Path p) throws IOException {
    Files.createDirectories(p);
    ImageRoot.sh(List.of("chown", "1000:1000", p.toString()));
    return p;
  }
}
