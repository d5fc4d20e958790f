package dev.weft.elastic;

import dev.weft.comm.Rendezvous;
import dev.weft.comm.StoreCalls;
import java.nio.charset.StandardCharsets;
import org.bytedeco.pytorch.Store;

/**
 * A {@link KeyValue} on a libtorch store (a prefixed view of the rendezvous TCPStore). Every call goes
 * through {@link StoreCalls}: one at a time, each with a deadline, so a cut link ends in a
 * {@link StoreCalls.StoreUnreachableException} instead of a hang.
 */
public final class StoreKeyValue implements KeyValue {
  private static final String ABSENT = "weft:absent:4f1c9e"; // a value no key of Weft's holds
  private final Store store;
  private final StoreCalls calls;

  public StoreKeyValue(Store store, StoreCalls calls) {
    this.store = store;
    this.calls = calls;
  }

  /** Returns once the store holds the value: a read from another process after it sees it ({@link Rendezvous#setHeld}). */
  @Override public void set(String key, String value) {
    calls.run("set '" + key + "'", () -> Rendezvous.setHeld(store, key, value.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * One round trip that never waits: a compare-and-set whose expected value no key holds returns the value when the
   * key exists and the expected value (writing nothing) when it does not. (A {@code get} waits for its key, and
   * when the store's host dies in that wait libtorch logs the error with its native frames.)
   */
  @Override public String getOrNull(String key) {
    return calls.call("get '" + key + "'", () -> {
      String v = store.compareSet(key, ABSENT, ABSENT);
      return ABSENT.equals(v) ? null : v;
    });
  }

  @Override public long add(String key, long delta) { return calls.call("add '" + key + "'", () -> store.add(key, delta)); }

  @Override public String setIfAbsent(String key, String value) {
    return calls.call("compare-set '" + key + "'", () -> store.compareSet(key, "", value));
  }
}
