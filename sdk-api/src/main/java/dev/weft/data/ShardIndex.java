package dev.weft.data;

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
 * Documents are separated by the {@code separator} token when the tokenizer has one (-1: none).
 */
public record ShardIndex(String format, int version, String dtype, long vocabSize, String tokenizer, int separator,
                         long documents, long tokens, List<Shard> shards) {
  public static final String FILE = "index.json";
  public static final String FORMAT = "weft-token-shards";
  private static final ObjectMapper JSON = Json.PRETTY;
  /** An index is kilobytes; larger ones are refused before reading. */
  static final long MAX_INDEX_BYTES = 64L << 20;

  public record Shard(String file, long tokens) {}

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
    for (Shard s : shards) {
      Path file;
      try {
        file = BoundedFiles.inside(dir, s.file()); // a tampered index naming ../../etc/passwd is refused, not opened
      } catch (BoundedFiles.Refused e) {
        throw new WeftException(dir.resolve(FILE) + " " + e.getMessage() + "; prepare the data again with weft data prepare");
      }
      TokenArray a = TokenArray.npy(file);
      if (a.size() != s.tokens()) {
        throw new WeftException(dir.resolve(s.file()) + " holds " + a.size() + " tokens, the index says " + s.tokens()
            + "; prepare the data again");
      }
      parts.add(a);
    }
    return new ConcatTokens(parts);
  }
}
