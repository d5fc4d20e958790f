package dev.weft.elastic;

/**
 * The few store operations elastic membership needs, none of which blocks: the rendezvous TCPStore
 * ({@link StoreKeyValue}), etcd ({@link EtcdKeyValue}), a map in tests ({@link MemoryKeyValue}).
 */
public interface KeyValue {
  /** Returns once the store holds the value: a read after it, from any client, sees it. */
  void set(String key, String value);

  /** The value, or null when the key is absent. */
  String getOrNull(String key);

  /** Adds {@code delta} to a counter (absent = 0) and returns the new value; {@code add(k, 0)} reads it. */
  long add(String key, long delta);

  /** Sets {@code key} to {@code value} only if it is absent; returns the value it holds afterwards. */
  String setIfAbsent(String key, String value);

  /** A view whose keys all start with {@code prefix} (a run's, a generation's). */
  default KeyValue under(String prefix) {
    KeyValue base = this;
    return new KeyValue() {
      @Override public void set(String key, String value) { base.set(prefix + key, value); }
      @Override public String getOrNull(String key) { return base.getOrNull(prefix + key); }
      @Override public long add(String key, long delta) { return base.add(prefix + key, delta); }
      @Override public String setIfAbsent(String key, String value) { return base.setIfAbsent(prefix + key, value); }
    };
  }
}
