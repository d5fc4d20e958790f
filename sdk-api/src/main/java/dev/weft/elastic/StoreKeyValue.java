package dev.weft.elastic;

import dev.weft.comm.StoreCalls;
import org.bytedeco.pytorch.Store;
import org.bytedeco.pytorch.StringVector;

/**
 * A {@link KeyValue} on a libtorch store (a prefixed view of the rendezvous TCPStore). Every call goes
 * through {@link StoreCalls}: one at a time, each with a deadline, so a cut link ends in a
 * {@link StoreCalls.StoreUnreachableException} instead of a hang.
 */
public final class StoreKeyValue implements KeyValue {
  private final Store store;
  private final StoreCalls calls;

  public StoreKeyValue(Store store, StoreCalls calls) {
    this.store = store;
    this.calls = calls;
  }

  @Override public void set(String key, String value) { calls.run("set '" + key + "'", () -> store.set(key, value)); }

  @Override public String getOrNull(String key) {
    return calls.call("get '" + key + "'", () -> store.check(new StringVector(key)) ? store.get_to_str(key) : null);
  }

  @Override public long add(String key, long delta) { return calls.call("add '" + key + "'", () -> store.add(key, delta)); }

  @Override public String setIfAbsent(String key, String value) {
    return calls.call("compare-set '" + key + "'", () -> store.compareSet(key, "", value));
  }
}
