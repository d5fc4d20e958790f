package dev.weft.data;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.error.WeftException;
import dev.weft.util.BoundedFiles;
import dev.weft.util.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code index.json} of a directory of token shards. Each shard is a 1-D {@code .npy} file of
 * {@code dtype} token ids (numpy reads them as they are); the dataset is the shards end to end.
 * Documents are separated by the {@code separator} token when the tokenizer has one (-1: none). Chat data adds a
 * {@code flags} file per shard: a 1-D {@code uint8} {@code .npy} of the same length, 1 where the token is a training
 * target (an assistant turn), 0 where not; shards without it (every index written before) are all targets. Each shard
 * also names a {@code documents} file: a 1-D {@code uint32} {@code .npy} of the shard-local end offsets of the
 * documents that end in it (the separator included), which packing reads; indexes written before have none.
 */
public record ShardIndex(String format, int version, String dtype, long vocabSize, String tokenizer, int separator,
                         long documents, long tokens, List<Shard> shards) {
  public static final String FILE = "index.json";
  public static final String FORMAT = "weft-token-shards";
  private static final ObjectMapper JSON = Json.PRETTY;
  /** An index is kilobytes; larger ones are refused before reading. */
  static final long MAX_INDEX_BYTES = 64L << 20;

  /**
   * One shard: its token file, its length, its flags file (null when every token is a target) and its document-ends
   * file (null in indexes written before documents were recorded).
   */
  public record Shard(String file, long tokens, @JsonInclude(JsonInclude.Include.NON_NULL) String flags,
                      @JsonInclude(JsonInclude.Include.NON_NULL) String documents) {
    public Shard(String file, long tokens) { this(file, tokens, null, null); }

    public Shard(String file, long tokens, String flags) { this(file, tokens, flags, null); }
  }

  /** Whether the shards carry target flags. */
  public boolean flagged() { return !shards.isEmpty() && shards.stream().allMatch(s -> s.flags() != null); }

  public TokenWidth width() {
    return switch (dtype) {
      case "uint16" -> TokenWidth.UINT16;
      case "uint32" -> TokenWidth.UINT32;
      default -> throw new WeftException("token shards: dtype '" + dtype + "' is unknown; prepare the data again with weft data prepare");
    };
  }

  public static boolean isShardDirectory(Path dir) { return Files.isRegularFile(dir.resolve(FILE)); }

  public static ShardIndex read(Path dir) {
    Path f = dir.resolve(FILE);
    try {
      ShardIndex ix = Json.STRICT.readValue(BoundedFiles.read(f, MAX_INDEX_BYTES), ShardIndex.class);
      if (!FORMAT.equals(ix.format())) throw new WeftException(f + " is not a Weft token-shard index (format '" + ix.format() + "')");
      return ix;
    } catch (IOException e) {
      throw new WeftException("cannot read " + f + ": " + e.getMessage() + "; prepare the data with weft data prepare", e);
    }
  }

  /** Writes the index atomically (a reader never sees half an index). */
  public void write(Path dir) {
    try {
      Path tmp = dir.resolve(FILE + ".tmp");
      JSON.writeValue(tmp.toFile(), this);
      Files.move(tmp, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new WeftException("cannot write " + dir.resolve(FILE) + ": " + e.getMessage(), e);
    }
  }

  /** All shards as one token array, memory-mapped. */
  public TokenArray open(Path dir) {
    List<TokenArray> parts = new ArrayList<>();
    for (Shard s : shards) parts.add(map(dir, s.file(), s.tokens()));
    return new ConcatTokens(parts);
  }

  /** The target flags of all shards as one array (1: target), memory-mapped; null when the shards have none. */
  public TokenArray openFlags(Path dir) {
    if (!flagged()) return null;
    List<TokenArray> parts = new ArrayList<>();
    for (Shard s : shards) parts.add(map(dir, s.flags(), s.tokens()));
    return new ConcatTokens(parts);
  }

  /**
   * Where each document ends in the shards read end to end (exclusive, ascending; empty documents left out); null
   * when the shards do not record their documents. The last document ends at the last token even when its end was
   * not recorded (data cut short).
   */
  public long[] documentEnds(Path dir) {
    if (shards.isEmpty() || !shards.stream().allMatch(s -> s.documents() != null)) return null;
    java.util.stream.LongStream.Builder ends = java.util.stream.LongStream.builder();
    long start = 0, last = 0;
    for (Shard s : shards) {
      TokenArray a = map(dir, s.documents(), -1);
      for (long i = 0; i < a.size(); i++) {
        long end = start + Integer.toUnsignedLong(a.get(i));
        if (end < last || end > start + s.tokens()) {
          throw new WeftException(dir.resolve(s.documents()) + " names a document end " + end + " out of order or outside its shard"
              + "; prepare the data again");
        }
        if (end > last) ends.add(end);
        last = end;
      }
      start += s.tokens();
    }
    if (start > last) ends.add(start);
    return ends.build().toArray();
  }

  private static TokenArray map(Path dir, String name, long tokens) {
    Path file;
    try {
      file = BoundedFiles.inside(dir, name); // a tampered index naming ../../etc/passwd is refused, not opened
    } catch (BoundedFiles.Refused e) {
      throw new WeftException(dir.resolve(FILE) + " " + e.getMessage() + "; prepare the data again with weft data prepare");
    }
    TokenArray a = TokenArray.npy(file);
    if (tokens >= 0 && a.size() != tokens) {
      throw new WeftException(dir.resolve(name) + " holds " + a.size() + " entries, the index says " + tokens
          + "; prepare the data again");
    }
    return a;
  }
}
