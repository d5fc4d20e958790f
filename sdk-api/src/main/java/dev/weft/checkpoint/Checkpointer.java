package dev.weft.checkpoint;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.weft.spec.CheckpointSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Saves this rank's part of each checkpoint and, on rank 0, commits it. Every rank calls
 * {@link #save} at the same steps with its own entries. With {@code async} the call returns once the
 * entries are copied to host memory and a background thread writes them; {@link #await} waits for
 * that write (call it before exiting; {@link #save} and {@link #close} call it too), and a failure
 * in the background surfaces there. Ranks agree through the {@link CommitStore}, never through
 * collectives, so the background thread cannot interleave with training communication.
 */
public final class Checkpointer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Checkpointer.class);

  /** {@code keep}: committed checkpoints to keep ({@code <= 0}: all). {@code timeout}: longest wait for the other ranks. */
  public record Options(int keep, boolean async, Duration timeout) {
    public static Options of(CheckpointSpec spec) { return new Options(spec.keep(), spec.async(), Duration.ofMinutes(30)); }
  }

  private final CheckpointStorage storage;
  private final String root; // for messages
  private final int rank;
  private final int world;
  private final CommitStore store;
  private final Options options;
  private final ExecutorService writer;
  private final ExecutorService janitor;
  private final StagingBuffers staging = new StagingBuffers();
  private final Set<Long> written = ConcurrentHashMap.newKeySet();
  private volatile OptionalLong resumedFrom = OptionalLong.empty();
  private volatile OptionalLong pinned = OptionalLong.empty();
  private Future<String> pending;
  private volatile Future<?> pruning;
  private long seq;

  private Checkpointer(CheckpointStorage storage, int rank, int world, CommitStore store, Options options) {
    this.storage = storage;
    this.root = storage.location();
    this.rank = rank;
    this.world = world;
    this.store = store;
    this.options = options;
    this.writer = options.async() ? Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "weft-ckpt-writer-" + rank);
      t.setDaemon(true);
      return t;
    }) : null;
    this.janitor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "weft-ckpt-prune-" + rank);
      t.setDaemon(true);
      return t;
    });
  }

  /** A checkpointer for rank {@code rank} of {@code world}, saving under the local directory {@code root}. */
  public static Checkpointer create(Path root, int rank, int world, CommitStore store, Options options) {
    return create(new LocalCheckpointStorage(root), rank, world, store, options);
  }

  /** A checkpointer for rank {@code rank} of {@code world}, saving to {@code storage} (the caller closes it). */
  public static Checkpointer create(CheckpointStorage storage, int rank, int world, CommitStore store, Options options) {
    if (world < 1 || rank < 0 || rank >= world) throw new IllegalArgumentException("rank " + rank + " of " + world);
    return new Checkpointer(storage, rank, world, store, options);
  }

  /** A single-process checkpointer (world size 1). */
  public static Checkpointer local(Path root, Options options) {
    return create(root, 0, 1, CommitStore.inProcess(), options);
  }

  /** This run started from checkpoint {@code step}: pruning never deletes it nor the newer steps this run did not write. */
  public void resumedFrom(long step) { resumedFrom = OptionalLong.of(step); }

  /** Checkpoint {@code step} is kept beside the newest {@code keep} (the best by eval loss); the step pinned before is not. */
  public void pin(long step) { pinned = OptionalLong.of(step); }

  /**
   * Saves {@code entries} as checkpoint {@code meta.step()}: synchronously (returns when committed)
   * or, with {@code async}, returns once the snapshot is taken. Waits for the previous save first.
   */
  public void save(CheckpointMeta meta, List<StateEntry> entries) {
    awaitSave(); // old checkpoints may still be being deleted: that runs on beside training
    long mySeq = ++seq;
    Snapshot snap = Snapshot.take(entries, options.async(), staging);
    if (options.async()) {
      pending = writer.submit(() -> write(meta, snap, mySeq));
    } else {
      try {
        write(meta, snap, mySeq);
      } catch (IOException e) {
        throw new CheckpointException("saving step " + meta.step() + " under " + root + " failed: " + e.getMessage(), e);
      }
    }
  }

  /**
   * Waits for the background save, if any, and for the deletion of checkpoints beyond {@code keep};
   * returns where the save committed its checkpoint; rethrows its failure.
   */
  public Optional<String> await() {
    try {
      return awaitSave();
    } finally {
      awaitPruning();
    }
  }

  private void awaitPruning() {
    Future<?> p = pruning;
    if (p == null) return;
    try {
      p.get(options.timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException | CancellationException e) {
      log.warn("deleting old checkpoints under {} did not finish: {}", root, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Optional<String> awaitSave() {
    Future<String> f = pending;
    pending = null;
    if (f == null) return Optional.empty();
    try {
      return Optional.of(f.get(options.timeout().toMillis() * 2, TimeUnit.MILLISECONDS));
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof CheckpointException ce) throw ce;
      throw new CheckpointException("the background save under " + root + " failed: " + c, c);
    } catch (TimeoutException | CancellationException e) {
      throw new CheckpointException("the background save under " + root + " did not finish within "
          + options.timeout().multipliedBy(2).toSeconds() + " s; is the disk full or a rank gone?", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CheckpointException("interrupted while waiting for the background save under " + root, e);
    }
  }

  @Override
  public void close() {
    try {
      await();
    } finally {
      janitor.shutdown();
      if (writer == null) {
        staging.close();
      } else {
        writer.shutdown();
        if (terminated(writer)) staging.close(); // else a stuck write still reads them: leak rather than free under it
      }
    }
  }

  private static boolean terminated(ExecutorService e) {
    try {
      return e.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private String write(CheckpointMeta meta, Snapshot snap, long mySeq) throws IOException {
    long t0 = System.nanoTime();
    String key = "weft-ckpt/" + mySeq + "/step-" + meta.step() + "/";
    ShardReport mine;
    Path tmp;
    if (rank == 0) removeLeftovers(meta.step());
    try {
      tmp = storage.staging(meta.step());
      mine = ShardWriting.write(tmp, rank, snap);
      if (mine.file() != null) storage.shardWritten(meta.step(), tmp.resolve(mine.file()));
    } catch (IOException | RuntimeException e) {
      publish(key, ShardReport.failed(rank, rank + ": " + e.getMessage()));
      throw e;
    }
    publish(key, mine);
    String committed = storage.locationOf(meta.step());
    if (rank == 0) {
      String outcome = "ok";
      try {
        waitCount(key + "written", world, "every rank to write its shard of step " + meta.step());
        List<ShardReport> reports = new ArrayList<>();
        for (int r = 0; r < world; r++) reports.add(parse(store.get(key + "rank-" + r)));
        for (ShardReport r : reports) {
          if (r.error() != null) throw new CheckpointException("rank " + r.rank() + " could not write its shard of step " + meta.step() + ": " + r.error());
        }
        committed = storage.commit(meta.step(), tmp, ManifestIO.assemble(meta, reports));
        long step = meta.step();
        written.add(step);
        OptionalLong from = resumedFrom;
        OptionalLong kept = pinned;
        pruning = janitor.submit(() -> {
          try {
            CommitProtocol.prune(storage, step, options.keep(), from, written, kept);
          } catch (IOException | RuntimeException e) {
            log.warn("could not delete old checkpoints under {} ({}); they stay until the next save", root, e.toString());
          }
        });
      } catch (IOException | RuntimeException e) {
        outcome = "failed: " + e.getMessage();
        throw e;
      } finally {
        store.set(key + "outcome", outcome);
        store.add(key + "done", 1);
      }
    } else {
      waitCount(key + "done", 1, "rank 0 to commit step " + meta.step());
      String outcome = store.get(key + "outcome");
      if (!"ok".equals(outcome)) throw new CheckpointException("step " + meta.step() + " was not committed: " + outcome);
    }
    log.debug("rank {}: step {} saved ({} bytes) in {} ms", rank, meta.step(), snap.bytes(), (System.nanoTime() - t0) / 1_000_000);
    return committed;
  }

  private void removeLeftovers(long step) {
    try {
      storage.removeLeftovers(step);
    } catch (IOException e) {
      log.warn("could not remove what earlier saves left under {} ({}); saving step {} anyway", root, e.toString(), step);
    }
  }

  private void publish(String key, ShardReport r) {
    try {
      store.set(key + "rank-" + rank, ManifestIO.json().writeValueAsString(r));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    store.add(key + "written", 1);
  }

  private static ShardReport parse(String json) {
    try {
      return ManifestIO.json().readValue(json, ShardReport.class);
    } catch (JsonProcessingException e) {
      throw new CheckpointException("a rank's shard report is not readable: " + e.getOriginalMessage());
    }
  }

  private void waitCount(String key, long n, String what) {
    long deadline = System.nanoTime() + options.timeout().toNanos();
    long sleepMs = 2;
    while (store.add(key, 0) < n) {
      if (System.nanoTime() > deadline) {
        throw new CheckpointException("rank " + rank + " waited " + options.timeout().toSeconds() + " s for " + what
            + "; a rank may have died while saving (raise the timeout for very large checkpoints)");
      }
      try {
        Thread.sleep(sleepMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CheckpointException("interrupted while waiting for " + what);
      }
      sleepMs = Math.min(50, sleepMs * 2);
    }
  }
}
