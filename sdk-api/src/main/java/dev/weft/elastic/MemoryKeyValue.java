package dev.weft.elastic;

import java.util.concurrent.ConcurrentHashMap;

/** A {@link KeyValue} in this JVM's memory (tests, single-process planning). */
public final class MemoryKeyValue implements KeyValue {
  private final ConcurrentHashMap<String, String> map = new ConcurrentHashMap<>();

  @Override public void set(String key, String value) { map.put(key, value); }

  @Override public String getOrNull(String key) { return map.get(key); }

  @Override public long add(String key, long delta) {
    return Long.parseLong(map.merge(key, String.valueOf(delta), (a, b) -> String.valueOf(Long.parseLong(a) + Long.parseLong(b))));
  }

  @Override public String setIfAbsent(String key, String value) {
    String prev = map.putIfAbsent(key, value);
    return prev == null ? value : prev;
  }
}
