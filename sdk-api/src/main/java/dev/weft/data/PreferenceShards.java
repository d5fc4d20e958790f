package dev.weft.data;

import dev.weft.error.WeftException;
import dev.weft.spec.SpecException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Preference data as {@code weft data prepare --format preference} writes it: flagged token shards whose documents
 * come in pairs (document 2i: pair i's chosen answer, 2i + 1: its rejected one, each with its prompt, no separator),
 * and {@value #LENGTHS}, each document's length in tokens ({@code uint32}), which says where every document starts.
 */
public final class PreferenceShards {
  public static final String LENGTHS = "pairs.npy";

  private PreferenceShards() {}

  public static boolean isPreferenceDirectory(Path dir) {
    return ShardIndex.isShardDirectory(dir) && Files.isRegularFile(dir.resolve(LENGTHS));
  }

  /** The pairs of {@code dir} as samples of {@code seqLen + 1} tokens (chosen, rejected, chosen, ...), shuffled by pair per epoch. */
  public static TokenSource open(Path dir, int seqLen, long seed) {
    if (!isPreferenceDirectory(dir)) {
      throw new SpecException("data.source", "'" + dir + "' holds no preference pairs (" + LENGTHS + "); prepare them with "
          + "weft data prepare --format preference");
    }
    ShardIndex ix = ShardIndex.read(dir);
    TokenArray lengths = TokenArray.npy(dir.resolve(LENGTHS));
    long[] starts = new long[Math.toIntExact(lengths.size()) + 1];
    for (int d = 0; d < lengths.size(); d++) starts[d + 1] = starts[d] + Integer.toUnsignedLong(lengths.get(d));
    if (starts[starts.length - 1] != ix.tokens() || lengths.size() % 2 != 0 || lengths.size() == 0) {
      throw new WeftException(dir.resolve(LENGTHS) + " does not describe pairs of the shards' " + ix.tokens()
          + " tokens; prepare the data again with weft data prepare --format preference");
    }
    return new PreferencePairs(ix.open(dir), ix.openFlags(dir), starts, "preference pairs " + dir, ix.vocabSize(), seqLen, seed);
  }

  /** Writes pairs into flagged shards and {@value #LENGTHS}. */
  public static final class Writer implements AutoCloseable {
    private final ShardWriter shards;
    private final NpyStream lengths;
    private final Path dir;

    public Writer(Path dir, long vocab, String tokenizer, long shardTokens) {
      this.dir = dir;
      this.shards = new ShardWriter(dir, vocab, tokenizer, -1, shardTokens, true);
      try {
        this.lengths = new NpyStream(dir.resolve(LENGTHS), TokenWidth.UINT32);
      } catch (IOException e) {
        throw new WeftException("cannot write " + dir.resolve(LENGTHS) + ": " + e.getMessage(), e);
      }
    }

    /** One pair: the chosen and the rejected answer, each its ids and target flags. */
    public void pair(int[] chosen, boolean[] chosenTargets, int[] rejected, boolean[] rejectedTargets) {
      document(chosen, chosenTargets);
      document(rejected, rejectedTargets);
    }

    private void document(int[] ids, boolean[] targets) {
      shards.append(ids, targets);
      shards.endDocument(false);
      try {
        lengths.write(ids.length);
      } catch (IOException e) {
        throw new WeftException("cannot write " + dir.resolve(LENGTHS) + ": " + e.getMessage(), e);
      }
    }

    public long tokens() { return shards.tokens(); }

    /** Finishes the lengths, then the shards' index (which is what makes the directory a dataset). */
    public ShardIndex finish() {
      try {
        lengths.finish();
      } catch (IOException e) {
        throw new WeftException("cannot finish " + dir.resolve(LENGTHS) + ": " + e.getMessage(), e);
      }
      return shards.finish();
    }

    @Override
    public void close() {
      try {
        lengths.close();
      } catch (IOException e) {
        throw new WeftException("cannot close " + dir.resolve(LENGTHS) + ": " + e.getMessage(), e);
      } finally {
        shards.close();
      }
    }
  }
}
