package dev.weft.data;

import dev.weft.error.WeftException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Streams token ids into {@code .npy} shards of at most {@code shardTokens} tokens each, and writes
 * {@code index.json} on {@link #finish()}. Each shard's header is written with a placeholder length
 * and rewritten (same size) once the shard is full.
 */
public final class ShardWriter implements AutoCloseable {
  private static final int BUFFER_BYTES = 1 << 20;

  private final Path dir;
  private final TokenWidth width;
  private final long vocab;
  private final String tokenizer;
  private final int separator;
  private final long shardTokens;
  private final List<ShardIndex.Shard> shards = new ArrayList<>();
  private final ByteBuffer buf = ByteBuffer.allocate(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private FileChannel current;
  private long inShard;
  private long documents;
  private long total;

  /** Writes under {@code dir}; ids are below {@code vocab}; {@code separator} -1 means none. */
  public ShardWriter(Path dir, long vocab, String tokenizer, int separator, long shardTokens) {
    if (shardTokens < 1) throw new IllegalArgumentException("shardTokens must be at least 1");
    this.dir = dir;
    this.width = TokenWidth.forVocab(vocab);
    this.vocab = vocab;
    this.tokenizer = tokenizer;
    this.separator = separator;
    this.shardTokens = shardTokens;
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new WeftException("cannot create " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Appends tokens of the current document. */
  public void append(int[] ids) {
    for (int id : ids) token(id);
  }

  /** Ends the current document: appends the separator (when there is one). */
  public void endDocument() {
    if (separator >= 0) token(separator);
    documents++;
  }

  private void token(int id) {
    if (id < 0 || id >= vocab) throw new WeftException("token id " + id + " is outside the tokenizer's vocabulary of " + vocab);
    try {
      if (current == null || inShard == shardTokens) startShard();
      if (buf.remaining() < width.bytes) flush();
      width.write(buf, id);
      inShard++;
      total++;
    } catch (IOException e) {
      throw new WeftException("cannot write token shards under " + dir + ": " + e.getMessage(), e);
    }
  }

  public long tokens() { return total; }

  public long documents() { return documents; }

  private void startShard() throws IOException {
    endShard();
    String name = String.format("shard-%05d.npy", shards.size());
    current = FileChannel.open(dir.resolve(name), StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE);
    current.write(ByteBuffer.wrap(Npy.header(width, 0)));
    shards.add(new ShardIndex.Shard(name, 0));
    inShard = 0;
  }

  private void flush() throws IOException {
    buf.flip();
    while (buf.hasRemaining()) current.write(buf);
    buf.clear();
  }

  private void endShard() throws IOException {
    if (current == null) return;
    flush();
    byte[] header = Npy.header(width, inShard);
    if (header.length != Npy.header(width, 0).length) throw new IllegalStateException("npy header grew");
    current.write(ByteBuffer.wrap(header), 0);
    current.close();
    current = null;
    int last = shards.size() - 1;
    shards.set(last, new ShardIndex.Shard(shards.get(last).file(), inShard));
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
    } catch (IOException e) {
      throw new WeftException("cannot close " + dir + ": " + e.getMessage(), e);
    } finally {
      current = null;
    }
  }
}
