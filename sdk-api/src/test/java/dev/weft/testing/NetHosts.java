package dev.weft.testing;

import dev.weft.launch.JavaCommand;
import dev.weft.launch.LocalLauncher;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Real hosts for tests: {@code n} network namespaces, each with its own loopback and one address on a
 * shared bridge, and its own {@code /etc/hosts} (through {@code /etc/netns/NAME/hosts}, which
 * {@code ip netns exec} mounts over {@code /etc/hosts}). The bridge lives in a hub namespace of its
 * own, so nothing is added to the machine's network. Each instance takes a free /24 in
 * 10.231.10.0–10.231.99.0 (a lock file per subnet, held while the instance lives), so concurrent
 * test JVMs never share one. {@link #close()} (and a JVM shutdown hook) stops the processes started
 * here and deletes every namespace, link and directory this instance made.
 *
 * <p>Names: host {@code i} is {@code wft<pid>-<k>-<i>} with address {@code 10.231.S.(i+1)}; the hub
 * is {@code wft<pid>-<k>-br}. {@link #cut(int)} downs the hub's side of a host's cable (packets to and
 * from it vanish, as with a pulled cable; the host keeps its address), {@link #heal(int)} restores it.
 */
public final class NetHosts implements AutoCloseable {
  private static final long PID = ProcessHandle.current().pid();
  private static final AtomicInteger INSTANCES = new AtomicInteger();
  private static final Path LOCKS = Path.of(System.getProperty("java.io.tmpdir"), "weft-netns-locks");
  private static final int FIRST_SUBNET = 10;
  private static final int LAST_SUBNET = 99;
  private static volatile String unavailable; // null: not probed yet; "": available

  private final String prefix;
  private final int subnet;
  private final FileChannel lockFile;
  private final FileLock lock;
  private final List<String> names = new ArrayList<>();
  private final List<Process> processes = new CopyOnWriteArrayList<>();
  private final Thread hook = new Thread(this::close, "weft-nethosts-cleanup");
  private boolean hubMade;
  private boolean closed;

  private NetHosts(String prefix, int subnet, FileChannel lockFile, FileLock lock) {
    this.prefix = prefix;
    this.subnet = subnet;
    this.lockFile = lockFile;
    this.lock = lock;
  }

  /** Whether namespaces can be made here (root and a working {@code ip netns}); see {@link #unavailableReason()}. */
  public static boolean available() { return unavailableReason().isEmpty(); }

  /** Empty when {@link #available()}; otherwise why not, for a test's skip message. */
  public static synchronized String unavailableReason() {
    if (unavailable == null) unavailable = probe();
    return unavailable;
  }

  private static String probe() {
    String probe = "wft" + PID + "-probe";
    try {
      run(List.of("ip", "netns", "add", probe));
      run(List.of("ip", "netns", "del", probe));
      return "";
    } catch (RuntimeException e) {
      return "network namespaces unavailable (needs root and iproute2): " + e.getMessage();
    }
  }

  /** {@code n} hosts on one bridge, each with loopback up and one address. */
  public static NetHosts create(int n) {
    if (n < 1 || n > 200) throw new IllegalArgumentException("hosts: " + n);
    NetHosts h = lockSubnet("wft" + PID + "-" + INSTANCES.incrementAndGet());
    Runtime.getRuntime().addShutdownHook(h.hook);
    try {
      h.build(n);
      return h;
    } catch (RuntimeException e) {
      h.close();
      throw e;
    }
  }

  private static NetHosts lockSubnet(String prefix) {
    try {
      Files.createDirectories(LOCKS);
      for (int s = FIRST_SUBNET; s <= LAST_SUBNET; s++) {
        FileChannel ch = FileChannel.open(LOCKS.resolve("10.231." + s + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock l = null;
        try {
          l = ch.tryLock();
        } catch (OverlappingFileLockException heldHere) {
          // another instance in this JVM has it
        }
        if (l != null) return new NetHosts(prefix, s, ch, l);
        ch.close();
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot lock a subnet under " + LOCKS + ": " + e.getMessage(), e);
    }
    throw new IllegalStateException("every subnet 10.231." + FIRST_SUBNET + "-" + LAST_SUBNET + ".0/24 is in use");
  }

  private void build(int n) {
    String hub = hub();
    run(List.of("ip", "netns", "add", hub));
    hubMade = true;
    run(List.of("ip", "-n", hub, "link", "add", "br0", "type", "bridge"));
    run(List.of("ip", "-n", hub, "link", "set", "br0", "up"));
    for (int i = 0; i < n; i++) {
      String ns = prefix + "-" + i;
      run(List.of("ip", "netns", "add", ns));
      names.add(ns);
      writeHosts(i, "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n");
      run(List.of("ip", "-n", hub, "link", "add", port(i), "type", "veth", "peer", "name", "eth0", "netns", ns));
      run(List.of("ip", "-n", hub, "link", "set", port(i), "master", "br0", "up"));
      run(List.of("ip", "-n", ns, "addr", "add", address(i) + "/24", "dev", "eth0"));
      run(List.of("ip", "-n", ns, "link", "set", "eth0", "up"));
      run(List.of("ip", "-n", ns, "link", "set", "lo", "up"));
    }
  }

  public int size() { return names.size(); }

  /** Host {@code i}'s address on the bridge. */
  public String address(int i) { return "10.231." + subnet + "." + (i + 1); }

  /** Host {@code i}'s namespace name. */
  public String name(int i) { return names.get(i); }

  /** Makes {@code hostname} resolve to host {@code i}'s address in every host (like a headless Service's DNS record). */
  public void resolve(String hostname, int i) {
    for (int h = 0; h < names.size(); h++) writeHosts(h, address(i) + "\t" + hostname + "\n");
  }

  /** {@code argv} run inside host {@code i}. */
  public List<String> command(int i, List<String> argv) {
    List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", name(i)));
    cmd.addAll(argv);
    return cmd;
  }

  /** Bytes host {@code i} has sent to the other hosts: its cable's transmit counter (traffic inside a host stays on its loopback). */
  public long sentBytes(int i) {
    return Long.parseLong(run(List.of("ip", "netns", "exec", name(i), "cat", "/sys/class/net/eth0/statistics/tx_bytes")));
  }

  /** Cuts host {@code i} off the bridge (a partition). */
  public void cut(int i) { run(List.of("ip", "-n", hub(), "link", "set", port(i), "down")); }

  /** Reconnects host {@code i}. */
  public void heal(int i) { run(List.of("ip", "-n", hub(), "link", "set", port(i), "up")); }

  /**
   * Starts {@code weft ARGS} (this JVM's java and class path, as {@link LocalLauncher} starts workers) in host
   * {@code i}, output to {@code log}. The environment is this JVM's without any rank or rendezvous variables,
   * plus {@code env}: a test states exactly what a controller would inject. Stopped by {@link #close()}.
   */
  public Process startWeft(int i, List<String> weftArgs, Map<String, String> env, Path log) {
    List<String> argv = new ArrayList<>(List.of("dev.weft.cli.WeftMain"));
    argv.addAll(weftArgs);
    return start(i, JavaCommand.of(argv), env, log);
  }

  /** Starts {@code argv} in host {@code i} with {@link #startWeft}'s environment rules; stopped by {@link #close()}. */
  public Process start(int i, List<String> argv, Map<String, String> env, Path log) {
    ProcessBuilder pb = new ProcessBuilder(command(i, argv))
        .redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> e = pb.environment();
    e.keySet().removeIf(NetHosts::isRunVariable);
    e.put("OMP_WAIT_POLICY", "PASSIVE");
    e.put("OMP_NUM_THREADS", "1");
    e.putAll(env);
    try {
      Process p = pb.start();
      processes.add(p);
      return p;
    } catch (IOException ex) {
      throw new IllegalStateException("cannot start " + argv.get(0) + " in " + name(i) + ": " + ex.getMessage(), ex);
    }
  }

  /**
   * Waits for every process started here to end (up to {@code deadline} in all) and returns each one's exit
   * code, in start order; one still running is killed and reported as -1. Logs are for the failure message.
   */
  public List<Integer> awaitAll(java.time.Duration deadline) {
    long end = System.nanoTime() + deadline.toNanos();
    List<Integer> codes = new ArrayList<>();
    for (Process p : processes) {
      try {
        long left = Math.max(0, end - System.nanoTime());
        if (p.waitFor(left, TimeUnit.NANOSECONDS)) {
          codes.add(p.exitValue());
        } else {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
          codes.add(-1);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        codes.add(-1);
      }
    }
    return codes;
  }

  /** The last {@code lines} lines of a log, for assertion messages. */
  public static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return log.getFileName() + ":\n" + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return log + ": " + e.getMessage();
    }
  }

  private static boolean isRunVariable(String name) {
    return name.startsWith("WEFT_") || name.startsWith("PET_") || name.startsWith("MASTER_")
        || List.of("RANK", "WORLD_SIZE", "LOCAL_RANK", "NODE_RANK", "JOB_COMPLETION_INDEX", "POD_IP", "NPROC_PER_NODE", "NNODES").contains(name);
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    for (Process p : processes) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    for (Process p : processes) {
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (String ns : names) {
      quietly(List.of("ip", "netns", "del", ns));
      deleteTree(Path.of("/etc/netns", ns));
    }
    if (hubMade) quietly(List.of("ip", "netns", "del", hub()));
    try {
      lock.release();
      lockFile.close();
    } catch (IOException ignored) {
      // the lock goes with the process anyway
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // we are the hook
    }
  }

  private String hub() { return prefix + "-br"; }

  private static String port(int i) { return "p" + i; }

  private void writeHosts(int i, String lines) {
    Path f = Path.of("/etc/netns", name(i), "hosts");
    try {
      Files.createDirectories(f.getParent());
      Files.writeString(f, lines, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write " + f + ": " + e.getMessage(), e);
    }
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) return;
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    } catch (IOException ignored) {
      // best effort; the namespace itself is gone
    }
  }

  private static void quietly(List<String> cmd) {
    try {
      run(cmd);
    } catch (RuntimeException ignored) {
      // cleanup continues with the rest
    }
  }

  /** Runs a command with a 30 s deadline; throws with its output when it fails. */
  static String run(List<String> cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", cmd) + " did not finish in 30 s");
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (p.exitValue() != 0) throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
      return out;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + cmd.get(0) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + String.join(" ", cmd), e);
    }
  }
}
