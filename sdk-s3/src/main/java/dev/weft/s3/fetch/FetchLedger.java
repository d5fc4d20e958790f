package dev.weft.s3.fetch;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.weft.util.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code .weft-fetch.json} in the target: for each object copied and verified, its size, the source's tag and the
 * SHA-256 of the bytes written. A rerun skips an object whose entry matches the source and whose file has that size.
 */
final class FetchLedger {
  static final String FILE = ".weft-fetch.json";

  /** One verified copy. */
  record Entry(long size, String tag, String sha256) {}

  private final Path file;
  private final Map<String, Entry> entries;

  private FetchLedger(Path file, Map<String, Entry> entries) {
    this.file = file;
    this.entries = entries;
  }

  static FetchLedger load(Path dir) throws IOException {
    Path f = dir.resolve(FILE);
    if (!Files.isRegularFile(f)) return new FetchLedger(f, new TreeMap<>());
    try {
      return new FetchLedger(f, new TreeMap<>(Json.STRICT.readValue(f.toFile(), new TypeReference<Map<String, Entry>>() {})));
    } catch (IOException e) { // a damaged ledger only costs a fresh copy of what it listed
      return new FetchLedger(f, new TreeMap<>());
    }
  }

  /** Whether {@code o} was copied whole from the same object and its file is still there at full size. */
  boolean complete(SourceObject o, Path target) throws IOException {
    Entry e = entries.get(o.name());
    return e != null && e.size() == o.size() && e.tag().equals(o.tag()) && Files.isRegularFile(target) && Files.size(target) == o.size();
  }

  void record(SourceObject o, String sha256) throws IOException {
    entries.put(o.name(), new Entry(o.size(), o.tag(), sha256));
    Path tmp = file.resolveSibling(FILE + ".tmp");
    Json.PRETTY.writeValue(tmp.toFile(), entries);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
