package dev.weft.testing;

import dev.weft.launch.FreePort;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A single-member etcd for tests (Debian's etcd-server: {@code /usr/bin/etcd}, or {@code WEFT_ETCD}), started
 * here with its own data directory, on 127.0.0.1 with free ports or inside a {@link NetHosts} host on its
 * address. No fsync (a test cluster). {@link #close()} kills it.
 */
public final class Etcd implements AutoCloseable {
  private final Process process;
  private final String endpoint;
  private final Path log;

  private Etcd(Process process, String endpoint, Path log) {
    this.process = process;
    this.endpoint = endpoint;
    this.log = log;
  }

  /** The etcd binary, or null when none is installed. */
  public static String binary() {
    String env = System.getenv("WEFT_ETCD");
    if (env != null && Files.isExecutable(Path.of(env))) return env;
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      if (Files.isExecutable(Path.of(dir, "etcd"))) return Path.of(dir, "etcd").toString();
    }
    return null;
  }

  public static boolean available() { return binary() != null; }

  public static String unavailableReason() { return "etcd is not installed (apt-get install etcd-server, or set WEFT_ETCD)"; }

  /** On this machine's loopback. */
  public static Etcd start(Path dir) {
    int client = FreePort.find();
    int peer = FreePort.find();
    return launch(List.of(), "127.0.0.1", client, peer, dir);
  }

  /** Inside host {@code i} of {@code hosts}, serving on its address (a fresh namespace: the usual ports are free). */
  public static Etcd startIn(NetHosts hosts, int i, Path dir) {
    return launch(hosts.command(i, List.of()), hosts.address(i), 2379, 2380, dir);
  }

  private static Etcd launch(List<String> wrapper, String addr, int client, int peer, Path dir) {
    List<String> cmd = new ArrayList<>(wrapper);
    String peerUrl = "http://127.0.0.1:" + peer;
    cmd.addAll(List.of(binary(), "--name", "t0", "--data-dir", dir.resolve("etcd-data").toString(),
        "--listen-client-urls", "http://" + addr + ":" + client, "--advertise-client-urls", "http://" + addr + ":" + client,
        "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl, "--initial-cluster", "t0=" + peerUrl,
        "--unsafe-no-fsync"));
    Path log = dir.resolve("etcd.log");
    try {
      Files.createDirectories(dir);
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      Etcd e = new Etcd(p, addr + ":" + client, log);
      e.awaitReady();
      return e;
    } catch (IOException ex) {
      throw new IllegalStateException("cannot start etcd: " + ex.getMessage(), ex);
    }
  }

  private void awaitReady() throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (Files.readString(log).contains("ready to serve client requests")) return;
      if (!process.isAlive()) break;
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    close();
    throw new IllegalStateException("etcd did not become ready within 60 s:\n" + NetHosts.tail(log, 20));
  }

  /** HOST:PORT of its client URL. */
  public String endpoint() { return endpoint; }

  public Path log() { return log; }

  /** SIGKILL, as a lost machine. */
  @Override public void close() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
