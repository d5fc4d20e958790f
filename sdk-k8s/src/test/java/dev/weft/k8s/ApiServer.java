package dev.weft.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.k8s.compat.ApiCompat;
import dev.weft.k8s.yaml.Yaml;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One real kube-apiserver 1.20 + etcd per test JVM, started by scripts/kube-apiserver.sh on free ports
 * of 127.0.0.1, with every CRD installed (down-converted for 1.20). Missing binaries skip the tests
 * locally and fail them in CI (CI=true).
 */
public final class ApiServer {
  private static ApiServer instance;

  public final Path dir;
  public final Path kubeconfig;
  public final KubernetesClient client;

  private ApiServer(Path dir) throws IOException {
    this.dir = dir;
    this.kubeconfig = dir.resolve("kubeconfig");
    this.client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig))).build();
  }

  public static synchronized ApiServer get() throws Exception {
    if (instance != null) return instance;
    Path script = Path.of(System.getProperty("weft.k8s.script", "scripts/kube-apiserver.sh"));
    Path bin = Path.of(run(script, "bin").trim());
    boolean built = Files.isExecutable(bin.resolve("kube-apiserver")) && Files.isExecutable(bin.resolve("etcd"));
    String why = "kube-apiserver/etcd not built in " + bin + "; run " + script + " build (about 5 minutes, once)";
    dev.weft.testing.Required.that(built, why);

    Path dir = Files.createTempDirectory("weft-apiserver");
    int etcd = freePortPair();
    int api = freePort();
    ProcessBuilder pb = new ProcessBuilder(script.toString(), "start", dir.toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("start.log").toFile());
    pb.environment().put("WEFT_ETCD_PORT", Integer.toString(etcd));
    pb.environment().put("WEFT_APISERVER_PORT", Integer.toString(api));
    Process p = pb.start();
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError("kube-apiserver did not start: " + Files.readString(dir.resolve("start.log")));
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        new ProcessBuilder(script.toString(), "stop", dir.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
      } catch (IOException | InterruptedException ignored) {
        // the JVM is exiting
      }
    }));
    instance = new ApiServer(dir);
    instance.installCrds();
    return instance;
  }

  private void installCrds() {
    for (Path f : CrdSchemas.crdFiles()) create(f);
    for (Path f : CrdSchemas.crdFiles()) awaitEstablished(f);
  }

  private void create(Path f) {
    JsonNode crd = ApiCompat.crdFor120(CrdSchemas.readYaml(f));
    CustomResourceDefinition c = Yaml.mapper().convertValue(crd, CustomResourceDefinition.class);
    try {
      client.apiextensions().v1().customResourceDefinitions().resource(c).create();
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      // a POST of a multi-megabyte CRD that timed out under load is retried by the client: the first one got through
      if (e.getCode() != 409) throw e;
    }
  }

  private void awaitEstablished(Path f) {
    String name = CrdSchemas.readYaml(f).path("metadata").path("name").asText();
    client.apiextensions().v1().customResourceDefinitions().withName(name).waitUntilCondition(c -> c != null && c.getStatus() != null
        && c.getStatus().getConditions() != null && c.getStatus().getConditions().stream().anyMatch(x -> x.getType().equals("Established") && x.getStatus().equals("True")),
        60, TimeUnit.SECONDS);
  }

  /** The CRD file named {@code fileName} among the installed ones. */
  public static Path crdFile(String fileName) {
    return CrdSchemas.crdFiles().stream().filter(f -> f.getFileName().toString().equals(fileName)).findFirst().orElseThrow();
  }

  /**
   * Runs {@code body} on a server without the CRD in {@code fileName} (deleted, and gone from discovery), then
   * installs it again.
   */
  public void without(String fileName, Runnable body) {
    Path f = crdFile(fileName);
    JsonNode crd = CrdSchemas.readYaml(f);
    String name = crd.path("metadata").path("name").asText();
    String group = crd.path("spec").path("group").asText();
    String kind = crd.path("spec").path("names").path("kind").asText();
    String version = crd.path("spec").path("versions").path(0).path("name").asText();
    client.apiextensions().v1().customResourceDefinitions().withName(name).delete();
    client.apiextensions().v1().customResourceDefinitions().withName(name).waitUntilCondition(c -> c == null, 60, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (client.supports(group + "/" + version, kind)) { // discovery follows the deletion a moment later
      if (System.nanoTime() > deadline) throw new AssertionError(kind + " still served 60 s after its CRD was deleted");
      sleep();
    }
    try {
      body.run();
    } finally {
      create(f);
      awaitEstablished(f);
      while (!client.supports(group + "/" + version, kind)) sleep();
    }
  }

  private static void sleep() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static String run(Path script, String... args) throws IOException, InterruptedException {
    List<String> cmd = new java.util.ArrayList<>(List.of(script.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    p.waitFor();
    return out;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** A port p with p+1 also free (etcd's client and peer ports). */
  private static int freePortPair() throws IOException {
    for (int i = 0; i < 50; i++) {
      int p = freePort();
      try (ServerSocket s = new ServerSocket(p + 1)) {
        return p;
      } catch (IOException busy) {
        // try another
      }
    }
    throw new IOException("no free pair of ports");
  }
}
