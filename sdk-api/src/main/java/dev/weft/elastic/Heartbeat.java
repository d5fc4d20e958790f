package dev.weft.elastic;

import dev.weft.comm.StoreCalls;
import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bumps a counter in the rendezvous store every interval from a daemon thread. A process that is
 * killed or stopped (SIGSTOP) stops bumping, and its {@link Watchdog} notices. When the store stops
 * answering (a beat past its deadline: this node is cut off) {@code onLost} gets the reason, once.
 */
public final class Heartbeat implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Heartbeat.class);

  private final Thread thread;
  private volatile boolean running = true;

  private Heartbeat(KeyValue kv, String key, Duration every, Consumer<String> onLost) {
    thread = new Thread(() -> {
      while (running) {
        try {
          kv.add(key, 1);
        } catch (StoreCalls.StoreUnreachableException e) {
          onLost.accept(e.getMessage());
          return;
        } catch (RuntimeException e) {
          log.debug("heartbeat {} not written: {}", key, e.getMessage());
        }
        try {
          Thread.sleep(every.toMillis());
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "weft-heartbeat");
    thread.setDaemon(true);
  }

  public static Heartbeat start(KeyValue kv, String key, Duration every, Consumer<String> onLost) {
    Heartbeat h = new Heartbeat(kv, key, every, onLost);
    h.thread.start();
    return h;
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
