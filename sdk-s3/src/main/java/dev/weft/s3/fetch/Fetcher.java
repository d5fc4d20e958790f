package dev.weft.s3.fetch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies every object of a source into a directory (a Hugging Face model or dataset before training): objects a
 * previous fetch completed are skipped, an interrupted object continues from its partial file, each is verified
 * before it gets its name, and the ledger records what was verified. A failed transfer is tried again from where
 * its partial file stopped ({@value #ATTEMPTS} tries), then left for a rerun.
 */
public final class Fetcher {
  private static final Logger log = LoggerFactory.getLogger(Fetcher.class);
  /** Tries per object when the transfer fails (each continues the partial file), one second more between each. */
  static final int ATTEMPTS = 3;

  /** What a fetch did: objects copied now, objects already complete, bytes copied now. */
  public record Result(int copied, int skipped, long bytes) {}

  private final FetchSource source;
  private final FetchListener listener;

  public Fetcher(FetchSource source, FetchListener listener) {
    this.source = source;
    this.listener = listener;
  }

  /** A fetch's own files (its ledger, partial copies), never copied from a source that was itself a fetch's target. */
  public static boolean isBookkeeping(String name) {
    return name.equals(FetchLedger.FILE) || name.endsWith("/" + FetchLedger.FILE) || name.endsWith(ObjectCopy.PARTIAL);
  }

  /** Copies every object the source lists. */
  public Result fetchInto(Path dir) throws IOException { return fetchInto(dir, source.list()); }

  /** Copies {@code objects} (the source's listing) into {@code dir}. */
  public Result fetchInto(Path dir, List<SourceObject> objects) throws IOException {
    Files.createDirectories(dir);
    FetchLedger ledger = FetchLedger.load(dir);
    ObjectCopy copy = new ObjectCopy(source, listener);
    int copied = 0, skipped = 0;
    long bytes = 0;
    for (SourceObject o : objects) {
      Path target = dir.resolve(o.name());
      if (ledger.complete(o, target)) {
        skipped++;
        listener.finished(o, true);
        continue;
      }
      ledger.record(o, copyRetrying(copy, o, target));
      copied++;
      bytes += o.size();
      listener.finished(o, false);
    }
    log.debug("fetched {} into {}: {} objects copied ({} bytes), {} already complete", source.describe(), dir, copied, bytes, skipped); // weft fetch prints it
    return new Result(copied, skipped, bytes);
  }

  private static String copyRetrying(ObjectCopy copy, SourceObject o, Path target) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return copy.copy(o, target);
      } catch (IOException e) {
        if (attempt >= ATTEMPTS) throw e;
        log.warn("{}: {} (try {} of {}); continuing from its partial file in {} s", o.name(), e.getMessage(), attempt, ATTEMPTS, attempt);
        try {
          Thread.sleep(1000L * attempt);
        } catch (InterruptedException stop) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }
}
