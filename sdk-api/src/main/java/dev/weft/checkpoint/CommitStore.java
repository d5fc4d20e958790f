package dev.weft.checkpoint;

import dev.weft.comm.Rendezvous;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The key-value store ranks use to agree that a checkpoint is written (the rendezvous store, not a
 * collective, so a background writer never interleaves with training collectives). Waiting is done
 * by the caller, polling {@link #add} with {@code delta = 0}, so every wait has the caller's timeout.
 */
public interface CommitStore {
  void set(String key, String value);

  /** The value of {@code key}; call only once {@link #add} has shown the writer is done. */
  String get(String key);

  /** Adds {@code delta} to the counter {@code key} and returns its new value (0 if never set). */
  long add(String key, long delta);

  /** The job's rendezvous store. */
  static CommitStore of(Rendezvous r) {
    return new CommitStore() {
      @Override public void set(String key, String value) { r.set(key, value); }
      @Override public String get(String key) { return r.getString(key); }
      @Override public long add(String key, long delta) { return r.add(key, delta); }
    };
  }

  /** A store inside this process, for a single rank (or ranks that are threads of one JVM). */
  static CommitStore inProcess() {
    Map<String, String> values = new ConcurrentHashMap<>();
    Map<String, AtomicLong> counters = new ConcurrentHashMap<>();
    return new CommitStore() {
      @Override public void set(String key, String value) { values.put(key, value); }
      @Override public String get(String key) {
        String v = values.get(key);
        if (v == null) throw new CheckpointException("no value for '" + key + "' in the commit store");
        return v;
      }
      @Override public long add(String key, long delta) { return counters.computeIfAbsent(key, k -> new AtomicLong()).addAndGet(delta); }
    };
  }
}
