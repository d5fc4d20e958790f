package dev.weft.tracking;

import dev.weft.checkpoint.CheckpointStorage;
import dev.weft.checkpoint.CheckpointStorages;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The copy of a run's event files at {@code tracking.tensorboard: SCHEME://...}: each file, once the sink closed it, is
 * stored under that location through its checkpoint storage ({@code s3://}: sdk-s3; {@code file://}: a directory) on a
 * thread of its own, so a slow store never holds a step. A store that cannot be opened is refused before training starts;
 * a copy that fails later is logged once and tried again with the next file; {@link #close} waits a bounded time for the
 * last ones.
 */
final class EventUploads implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EventUploads.class);

  private final CheckpointStorage store;
  private final Duration closeWait;
  private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "weft-tensorboard-upload");
    t.setDaemon(true); // an upload that outlives close never holds the JVM
    return t;
  });
  private final Set<Path> failed = new LinkedHashSet<>(); // the upload thread's alone
  private boolean warned;

  EventUploads(CheckpointStorage store, Duration closeWait) {
    this.store = store;
    this.closeWait = closeWait;
  }

  /**
   * Uploads to {@code uri}; {@code localWork} is the storage's scratch directory. A store that cannot be opened (no
   * such bucket, refused credentials, nobody answering: the storage checks at open) is one line naming {@code field}.
   */
  static EventUploads open(String field, String uri, Path localWork, Duration closeWait) {
    return new EventUploads(store(field, uri, localWork), closeWait);
  }

  /** Opens {@code uri} as {@link #open} does and lets it go: the check, before any rank starts. */
  static void check(String field, String uri, Path localWork) {
    store(field, uri, localWork).close();
  }

  private static CheckpointStorage store(String field, String uri, Path localWork) {
    return CheckpointStorages.openAs(field, uri, localWork);
  }

  String location() { return store.location(); }

  /** Copies closed event file {@code file} (after any that failed before); returns at once. */
  void submit(Path file) { thread.execute(() -> upload(file)); }

  private void upload(Path file) {
    List<Path> todo = new ArrayList<>(failed);
    todo.add(file);
    for (Path f : todo) {
      try {
        store.putFile(f.getFileName().toString(), f);
        if (failed.remove(f) && failed.isEmpty()) log.info("TensorBoard event files reach {} again", store.location());
      } catch (Exception e) {
        failed.add(f);
        if (!warned) log.warn("TensorBoard event file {} not copied to {} ({}); tried again with the next file", f.getFileName(),
            store.location(), e.getMessage());
        warned = true;
      }
    }
  }

  /** Waits at most the close wait for the submitted copies, then lets the store go. */
  @Override
  public void close() {
    thread.shutdown();
    try {
      if (!thread.awaitTermination(closeWait.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("TensorBoard event files still being copied to {} after {} s; the run directory holds them", store.location(),
            closeWait.toSeconds());
        return; // the store stays open for the copy in flight; the daemon thread ends with the JVM
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (!failed.isEmpty()) log.warn("{} TensorBoard event file(s) not copied to {}; the run directory holds them", failed.size(), store.location());
    store.close();
  }
}
