package dev.weft.checkpoint;

import dev.weft.metrics.MetricsJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's record ({@code metrics.jsonl}, {@code summary.json}, {@code elastic.json}, {@code lineage.json}) kept with its checkpoints, in
 * {@code run/} of the checkpoint location (a directory on a claim, or {@code s3://bucket/prefix/run/}), so that the
 * whole history of a run is in one place whichever hosts its generations ran on. Rank 0 of a resumed run (each
 * elastic generation after the first) starts its local {@code metrics.jsonl} from the record's, cut to the step it
 * resumed from, appends its own steps, and publishes the files before every checkpoint commit (so the record holds
 * every step up to the checkpoint a later run resumes from) and at the end. Checkpoints inside the run directory
 * need no copy: that run directory is the record.
 */
public final class RunRecord {
  private static final Logger log = LoggerFactory.getLogger(RunRecord.class);
  /** The record's folder under the checkpoint location. */
  public static final String DIR = "run";
  /** The largest record file read back (a metrics line is ~300 bytes: millions of steps). */
  public static final long MAX_BYTES = 1L << 30;
  public static final String METRICS = "metrics.jsonl";
  public static final String ELASTIC = "elastic.json";
  public static final List<String> FILES = List.of(METRICS, "summary.json", ELASTIC, "lineage.json");

  private final CheckpointStorage storage;
  private final Path runDir;

  private RunRecord(CheckpointStorage storage, Path runDir) {
    this.storage = storage;
    this.runDir = runDir;
  }

  /** The record of the run in {@code runDir} kept in {@code storage}; null when the checkpoints lie inside the run dir. */
  public static RunRecord of(CheckpointStorage storage, Path runDir) {
    if (storage instanceof LocalCheckpointStorage l
        && l.root().toAbsolutePath().normalize().startsWith(runDir.toAbsolutePath().normalize())) {
      return null;
    }
    return new RunRecord(storage, runDir);
  }

  /** Where the record is, for messages. */
  public String location() { return CheckpointStorages.trimmed(storage.location()) + "/" + DIR; }

  /**
   * Rank 0 of a run resuming after {@code resumedAt}: {@code runDir/metrics.jsonl} becomes the record's (or stays
   * the local one when that holds more of the steps), cut to {@code resumedAt}, so every step appears once.
   */
  public void resume(long resumedAt) {
    Path fetched = runDir.resolve(METRICS + ".record");
    try {
      if (storage.getRecord(METRICS, fetched)) {
        Path local = runDir.resolve(METRICS);
        MetricsJson.keepThrough(fetched, resumedAt);
        MetricsJson.keepThrough(local, resumedAt);
        if (!Files.isRegularFile(local) || lines(fetched) >= lines(local)) {
          Files.move(fetched, local, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
      }
    } catch (IOException | CheckpointException e) {
      log.warn("the run record at {} cannot be read ({}); metrics.jsonl continues from this run directory's", location(),
          e.getMessage());
    } finally {
      try {
        Files.deleteIfExists(fetched);
      } catch (IOException ignored) {
        // a leftover copy is harmless
      }
    }
    MetricsJson.keepThrough(runDir.resolve(METRICS), resumedAt);
  }

  /** Copies the record files {@code runDir} has to the storage; a failure is logged, training goes on. */
  public void publish() { publish(FILES); }

  /** As {@link #publish()} for some of the files (an agent mid-run: its metrics.jsonl may be an older node's copy). */
  public void publish(List<String> names) {
    for (String name : names) {
      Path f = runDir.resolve(name);
      if (!Files.isRegularFile(f)) continue;
      try {
        storage.putRecord(name, f);
      } catch (IOException | CheckpointException e) {
        log.warn("{} not copied to the run record at {}: {}", name, location(), e.getMessage());
      }
    }
  }

  /**
   * Copies the record at {@code storage} into {@code into} (for {@code weft report}); false when there is none.
   */
  public static boolean download(CheckpointStorage storage, Path into) {
    boolean any = false;
    try {
      Files.createDirectories(into);
      for (String name : FILES) any |= storage.getRecord(name, into.resolve(name));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy the run record of " + storage.location() + " into " + into, e);
    }
    return any;
  }

  private static long lines(Path f) throws IOException {
    try (var s = Files.lines(f)) {
      return s.filter(l -> !l.isBlank()).count();
    }
  }
}
