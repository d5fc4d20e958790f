package dev.weft.elastic;

/**
 * The few store operations elastic membership needs, none of which blocks: the rendezvous store in
 * production ({@link StoreKeyValue}), a map in tests ({@link MemoryKeyValue}).
 */
public interface KeyValue {
  void set(String key, String value);

  /** The value, or null when the key is absent. */
  String getOrNull(String key);

  /** Adds {@code delta} to a counter (absent = 0) and returns the new value; {@code add(k, 0)} reads it. */
  long add(String key, long delta);

  /** Sets {@code key} to {@code value} only if it is absent; returns the value it holds afterwards. */
  String setIfAbsent(String key, String value);
}
