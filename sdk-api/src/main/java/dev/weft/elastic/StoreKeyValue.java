package dev.weft.elastic;

import org.bytedeco.pytorch.Store;
import org.bytedeco.pytorch.StringVector;

/**
 * A {@link KeyValue} on a libtorch store (a prefixed view of the rendezvous TCPStore). Calls are
 * serialized: one store client is shared by this process's threads.
 */
public final class StoreKeyValue implements KeyValue {
  private final Store store;

  public StoreKeyValue(Store store) { this.store = store; }

  @Override public synchronized void set(String key, String value) { store.set(key, value); }

  @Override public synchronized String getOrNull(String key) {
    if (!store.check(new StringVector(key))) return null;
    return store.get_to_str(key);
  }

  @Override public synchronized long add(String key, long delta) { return store.add(key, delta); }

  @Override public synchronized String setIfAbsent(String key, String value) {
    return store.compareSet(key, "", value);
  }
}
