package dev.weft.comm;

import dev.weft.util.NativeCache;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.bytedeco.javacpp.chrono.Milliseconds;
import org.bytedeco.pytorch.ByteVector;
import org.bytedeco.pytorch.IntOptional;
import org.bytedeco.pytorch.PrefixStore;
import org.bytedeco.pytorch.Store;
import org.bytedeco.pytorch.StringVector;
import org.bytedeco.pytorch.TCPStore;
import org.bytedeco.pytorch.TCPStoreOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This process's connection to the rendezvous store (libtorch's TCPStore; rank 0 hosts it). A
 * worker that starts before the host retries with backoff until the timeout instead of failing.
 * The host listens only on the address the store is named by when that address is this machine's
 * (loopback for local runs), never on every interface; every key lives under the run token's
 * prefix ({@link RunToken}), so a client without the token cannot touch the run's keys.
 * The Java-created store is kept here and only native clones are handed out: passing the same
 * Java-created store to native code twice aborts the JVM.
 */
public final class Rendezvous implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Rendezvous.class);

  private final String host;
  private final int port;
  private final int rank;
  private final Duration timeout;
  private final String localAddress;
  private final TCPStore store;
  private final Store nativeBase;
  private final StoreCalls calls;
  private final String keyPrefix;
  private boolean closed;

  private Rendezvous(String host, int port, int rank, Duration timeout, String localAddress, TCPStore store, String token) {
    this.host = host;
    this.localAddress = localAddress;
    this.port = port;
    this.rank = rank;
    this.timeout = timeout;
    this.keyPrefix = RunToken.keyPrefix(token);
    this.store = Retained.keep(store);
    this.nativeBase = Retained.keep(store.clone());
    this.calls = new StoreCalls("the rendezvous store at " + host + ":" + port, timeout);
  }

  /** As {@link #connect(String, int, int, boolean, Duration, String)} with this host's address found by {@link NodeAddress}. */
  public static Rendezvous connect(String host, int port, int rank, boolean isHost, Duration timeout) {
    return connect(host, port, rank, isHost, timeout, null);
  }

  /** As {@link #connect(String, int, int, boolean, Duration, String, String)} with the run token from {@code WEFT_RUN_TOKEN}. */
  public static Rendezvous connect(String host, int port, int rank, boolean isHost, Duration timeout, String nodeAddr) {
    return connect(host, port, rank, isHost, timeout, nodeAddr, RunToken.fromEnv());
  }

  /**
   * Rank {@code isHost} hosts the store; everyone else connects, retrying until {@code timeout}.
   * {@code nodeAddr} is this host's own address, which this rank's communicators bind to; null: resolved
   * from the environment or the route to {@code host} ({@link NodeAddress}). {@code token}: the run's
   * {@link RunToken} ("" for none).
   */
  public static Rendezvous connect(String host, int port, int rank, boolean isHost, Duration timeout, String nodeAddr, String token) {
    String local = nodeAddr != null && !nodeAddr.isBlank() ? nodeAddr : NodeAddress.resolve(null, host);
    NativeCache.load(); // the store is libtorch's: agents sharing a cold cache must not extract it at once
    long deadline = System.nanoTime() + timeout.toNanos();
    long backoffMs = 100;
    RuntimeException last = null;
    while (true) {
      long leftMs = Math.max(1000, (deadline - System.nanoTime()) / 1_000_000);
      try {
        TCPStoreOptions o = new TCPStoreOptions();
        o.port((short) port).isServer(isHost).waitWorkers(false)
            .timeout(new Milliseconds(Math.min(leftMs, timeout.toMillis())));
        if (isHost) StoreListener.bindTo(host, port).ifPresent(fd -> o.masterListenFd(new IntOptional(fd)));
        TCPStore s = new TCPStore(host, o);
        log.debug("rank {} joined the rendezvous store at {}:{}", rank, host, port);
        return new Rendezvous(host, port, rank, timeout, local, s, token).markToken(isHost, token);
      } catch (dev.weft.spec.SpecException noToken) {
        throw noToken; // connected, but this node lacks the run's token: waiting cannot help
      } catch (RuntimeException e) {
        last = e;
        if (isHost || System.nanoTime() > deadline) break;
        sleep(backoffMs);
        backoffMs = Math.min(2000, backoffMs * 2);
      }
    }
    throw new CommException("rank " + rank + " could not " + (isHost ? "host" : "reach") + " the rendezvous store at "
        + host + ":" + port + " within " + timeout.toSeconds() + " s: " + firstLine(last)
        + (isHost ? " (is the port free? set MASTER_PORT to another one)" : " (is rank 0 running? check MASTER_ADDR/MASTER_PORT)"), last);
  }

  /**
   * The store's host marks it with its run's token identity under an unprefixed key (which holds no secret); a node
   * whose token differs (another token, none where the run has one, or one where the run has none) is refused in
   * one line before it sets anything, instead of waiting for keys it cannot see or running a run of its own beside.
   * A store without the mark (deleted by another local process) admits any node: the run's keys stay under its token
   * and its run directory's lock names the token too (docs/security.md).
   */
  private Rendezvous markToken(boolean isHost, String token) {
    String mine = RunToken.identity(token);
    if (isHost) {
      calls.run("set '" + RunToken.MARK_KEY + "'", () -> setHeld(nativeBase, RunToken.MARK_KEY, mine.getBytes(StandardCharsets.UTF_8)));
    } else if (calls.call("check '" + RunToken.MARK_KEY + "'", () -> nativeBase.check(new StringVector(RunToken.MARK_KEY)))) {
      ByteVector v = calls.call("get '" + RunToken.MARK_KEY + "'", () -> nativeBase.get(RunToken.MARK_KEY));
      byte[] b = new byte[(int) Math.min(v.size(), 256)];
      for (int i = 0; i < b.length; i++) b[i] = v.get(i);
      String theirs = new String(b, StandardCharsets.UTF_8);
      if (!theirs.equals(mine)) throw RunToken.mismatch("the rendezvous store at " + host + ":" + port, theirs, mine);
    }
    return this;
  }

  /** A native store whose keys live under {@code prefix}; one per process group. */
  public Store prefixed(String prefix) {
    return new PrefixStore(keyPrefix + prefix, nativeBase);
  }

  /**
   * Every call on this connection, each with a deadline (the timeout; a blocking {@link #get} gets twice
   * that): a call on a cut link would otherwise block forever.
   */
  public StoreCalls calls() { return calls; }

  public void set(String key, byte[] value) {
    calls.run("set '" + key + "'", () -> setHeld(nativeBase, keyPrefix + key, value));
  }

  /**
   * Sets {@code key} and returns once the store holds it. libtorch's set only sends (no answer comes back), so a read
   * on another connection right after it may reach the store first and miss the value; a check on this connection
   * is answered only after the store has applied the set before it (one connection's requests are served in order).
   */
  public static void setHeld(Store store, String key, byte[] value) {
    store.set(key, new ByteVector(value));
    store.check(new StringVector(key));
  }

  public void set(String key, String value) { set(key, value.getBytes(StandardCharsets.UTF_8)); }

  /** Waits up to the store's timeout for {@code key}. */
  public byte[] get(String key) {
    try {
      ByteVector v = calls.call("get '" + key + "'", timeout.multipliedBy(2), () -> nativeBase.get(keyPrefix + key));
      byte[] out = new byte[(int) v.size()];
      for (int i = 0; i < out.length; i++) out[i] = v.get(i);
      return out;
    } catch (StoreCalls.StoreUnreachableException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CommException("rank " + rank + " waited " + timeout.toSeconds() + " s for '" + key
          + "' in the rendezvous store: " + firstLine(e), e);
    }
  }

  public String getString(String key) { return new String(get(key), StandardCharsets.UTF_8); }

  /** Whether {@code key} is set (no waiting). */
  public boolean has(String key) {
    return calls.call("check '" + key + "'", () -> nativeBase.check(new StringVector(keyPrefix + key)));
  }

  public long add(String key, long delta) { return calls.call("add '" + key + "'", () -> nativeBase.add(keyPrefix + key, delta)); }

  /** Blocks until {@code n} callers have reached the barrier called {@code name}, or the timeout passes. */
  public void barrier(String name, int n) {
    long arrived = add("barrier/" + name, 1);
    if (arrived == n) set("barrier/" + name + "/done", "1");
    get("barrier/" + name + "/done");
  }

  public String host() { return host; }
  /** This host's own address: what this rank's communicators bind to and advertise. */
  public String localAddress() { return localAddress; }
  public int port() { return port; }
  public Duration timeout() { return timeout; }

  /**
   * Lets go of this connection and, on the host, shuts the store's server down: call it when no rank uses the store
   * any more ({@link Distributed#close} makes sure of that). Waits at most the timeout. A connection that lost the
   * store (a call past its deadline left a thread inside native code) is left as it is, as is anything a prefixed
   * store made from it still holds (it is freed with the last of them).
   */
  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    if (calls.lost() || !calls.close(timeout)) {
      log.debug("rank {} keeps its connection to {}:{}: the store is unreachable or a call is still in it", rank, host, port);
      return;
    }
    Retained.release(nativeBase);
    Retained.release(store);
    NativeRelease.within("the rendezvous store at " + host + ":" + port, timeout, () -> {
      nativeBase.deallocate();
      store.deallocate();
    });
  }

  static String firstLine(Throwable e) {
    if (e == null || e.getMessage() == null) return String.valueOf(e);
    String m = e.getMessage().strip();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CommException("interrupted while waiting for the rendezvous store");
    }
  }

}
