package dev.weft.data;

import dev.weft.error.WeftException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Streams token ids into {@code .npy} shards of at most {@code shardTokens} tokens each, and writes
 * {@code index.json} on {@link #finish()}. A writer made {@code flagged} also writes each token's target flag
 * (1: learn it, 0: do not) into a {@code uint8} file beside each shard. Where each document ends is written beside each
 * shard too (a {@code uint32} file of shard-local offsets), so samples can be packed from whole documents.
 */
public final class ShardWriter implements AutoCloseable {
  private final Path dir;
  private final TokenWidth width;
  private final long vocab;
  private final String tokenizer;
  private final int separator;
  private final long shardTokens;
  private final boolean flagged;
  private final List<ShardIndex.Shard> shards = new ArrayList<>();
  private NpyStream current;
  private NpyStream currentFlags;
  private NpyStream currentDocuments;
  private long documents;
  private long total;

  /** Writes under {@code dir}; ids are below {@code vocab}; {@code separator} -1 means none. */
  public ShardWriter(Path dir, long vocab, String tokenizer, int separator, long shardTokens) {
    this(dir, vocab, tokenizer, separator, shardTokens, false);
  }

  /** As above; {@code flagged} writes a target flag per token as well. */
  public ShardWriter(Path dir, long vocab, String tokenizer, int separator, long shardTokens, boolean flagged) {
    if (shardTokens < 1 || shardTokens > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("shardTokens must be in [1, 2^31 - 1]");
    }
    this.dir = dir;
    this.width = TokenWidth.forVocab(vocab);
    this.vocab = vocab;
    this.tokenizer = tokenizer;
    this.separator = separator;
    this.shardTokens = shardTokens;
    this.flagged = flagged;
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new WeftException("cannot create " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Appends tokens of the current document (all of them targets). */
  public void append(int[] ids) {
    for (int id : ids) token(id, true);
  }

  /** Appends tokens of the current document with their target flags. */
  public void append(int[] ids, boolean[] targets) {
    if (ids.length != targets.length) throw new IllegalArgumentException(ids.length + " ids but " + targets.length + " flags");
    for (int i = 0; i < ids.length; i++) token(ids[i], targets[i]);
  }

  /** Ends the current document: appends the separator (when there is one), a target. */
  public void endDocument() { endDocument(true); }

  /** Ends the current document: appends the separator (when there is one) with the given target flag. */
  public void endDocument(boolean separatorIsTarget) {
    if (separator >= 0) token(separator, separatorIsTarget);
    documents++;
    if (current == null) return; // nothing written yet: an empty document
    try {
      currentDocuments.write((int) current.count());
    } catch (IOException e) {
      throw new WeftException("cannot write token shards under " + dir + ": " + e.getMessage(), e);
    }
  }

  private void token(int id, boolean target) {
    if (id < 0 || id >= vocab) throw new WeftException("token id " + id + " is outside the tokenizer's vocabulary of " + vocab);
    try {
      if (current == null || current.count() == shardTokens) startShard();
      current.write(id);
      if (flagged) currentFlags.write(target ? 1 : 0);
      total++;
    } catch (IOException e) {
      throw new WeftException("cannot write token shards under " + dir + ": " + e.getMessage(), e);
    }
  }

  public long tokens() { return total; }

  public long documents() { return documents; }

  private void startShard() throws IOException {
    endShard();
    String stem = String.format("shard-%05d", shards.size());
    current = new NpyStream(dir.resolve(stem + ".npy"), width);
    String flags = flagged ? stem + ".flags.npy" : null;
    if (flagged) currentFlags = new NpyStream(dir.resolve(flags), TokenWidth.UINT8);
    currentDocuments = new NpyStream(dir.resolve(stem + ".docs.npy"), TokenWidth.UINT32);
    shards.add(new ShardIndex.Shard(stem + ".npy", 0, flags, stem + ".docs.npy"));
  }

  private void endShard() throws IOException {
    if (current == null) return;
    current.finish();
    if (currentFlags != null) currentFlags.finish();
    currentDocuments.finish();
    int last = shards.size() - 1;
    ShardIndex.Shard s = shards.get(last);
    shards.set(last, new ShardIndex.Shard(s.file(), current.count(), s.flags(), s.documents()));
    current = null;
    currentFlags = null;
    currentDocuments = null;
  }

  /** Finishes the last shard and writes the index (which is what makes the directory a dataset). */
  public ShardIndex finish() {
    try {
      endShard();
    } catch (IOException e) {
      throw new WeftException("cannot finish token shards under " + dir + ": " + e.getMessage(), e);
    }
    String dtype = width == TokenWidth.UINT16 ? "uint16" : "uint32";
    ShardIndex ix = new ShardIndex(ShardIndex.FORMAT, 1, dtype, vocab, tokenizer, separator, documents, total, List.copyOf(shards));
    ix.write(dir);
    return ix;
  }

  /** Closes an unfinished shard without writing the index, so a failed run leaves no dataset behind. */
  @Override
  public void close() {
    try {
      if (current != null) current.close();
      if (currentFlags != null) currentFlags.close();
      if (currentDocuments != null) currentDocuments.close();
    } catch (IOException e) {
      throw new WeftException("cannot close " + dir + ": " + e.getMessage(), e);
    } finally {
      current = null;
      currentFlags = null;
      currentDocuments = null;
    }
  }
}
