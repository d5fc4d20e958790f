package dev.weft.data.prepare;

import dev.weft.data.ShardIndex;
import dev.weft.data.ShardWriter;
import dev.weft.spec.SpecException;
import dev.weft.tokenizer.Tokenizer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code weft data prepare}: input files → documents → token ids → {@code .npy} shards and
 * {@code index.json}. One pass, streaming; memory does not grow with the input.
 */
public final class Prepare {
  private Prepare() {}

  /**
   * What to prepare. {@code format} is {@code auto}, {@code text} or {@code jsonl}; {@code separator}
   * -1 means none (documents run together).
   */
  public record Request(Tokenizer tokenizer, List<Path> inputs, Path out, String format, String field, long shardTokens,
                        int separator) {}

  /** Told how far preparation is, in input bytes. */
  public interface Progress {
    void update(long bytesDone, long bytesTotal, long tokens);
  }

  public static ShardIndex run(Request r, Progress progress) {
    long total = 0;
    for (Path in : r.inputs()) {
      InputFormat.of(r.format(), in);
      total += size(in);
    }
    if (Files.exists(r.out().resolve(ShardIndex.FILE))) {
      throw new SpecException("--out", r.out() + " already holds prepared data; choose a new directory or delete it");
    }
    long bytesTotal = total;
    long[] done = {0};
    try (ShardWriter w = new ShardWriter(r.out(), r.tokenizer().vocabSize(), r.tokenizer().describe(), r.separator(),
        r.shardTokens())) {
      Batched sink = new Batched(r.tokenizer(), w);
      for (Path in : r.inputs()) {
        Documents.read(in, InputFormat.of(r.format(), in), r.field(), sink, n -> {
          done[0] += n;
          progress.update(done[0], bytesTotal, w.tokens());
        });
      }
      sink.flush();
      return w.finish();
    }
  }

  /**
   * Hands the tokenizer many pieces at once (it encodes a batch in parallel) and writes their ids
   * in order, ending documents where the input did.
   */
  private static final class Batched implements Documents.Sink {
    private static final int MAX_CHARS = 1 << 20;
    private static final int MAX_PIECES = 1024;
    private final Tokenizer tokenizer;
    private final ShardWriter out;
    private final List<String> pieces = new ArrayList<>();
    private final List<Integer> ends = new ArrayList<>(); // documents ending after each piece
    private long chars;

    Batched(Tokenizer tokenizer, ShardWriter out) {
      this.tokenizer = tokenizer;
      this.out = out;
    }

    @Override
    public void piece(String text) {
      pieces.add(text);
      ends.add(0);
      chars += text.length();
      if (chars >= MAX_CHARS || pieces.size() >= MAX_PIECES) flush();
    }

    @Override
    public void endDocument() {
      if (ends.isEmpty()) out.endDocument(); else ends.set(ends.size() - 1, ends.get(ends.size() - 1) + 1);
    }

    void flush() {
      List<int[]> ids = tokenizer.encodeBatch(pieces);
      for (int i = 0; i < ids.size(); i++) {
        out.append(ids.get(i));
        for (int e = 0; e < ends.get(i); e++) out.endDocument();
      }
      pieces.clear();
      ends.clear();
      chars = 0;
    }
  }

  private static long size(Path in) {
    if (!Files.isRegularFile(in)) throw new SpecException("--input", in + " is not a readable file; fix the path");
    try {
      return Files.size(in);
    } catch (IOException e) {
      throw new SpecException("--input", "cannot read " + in + ": " + e.getMessage());
    }
  }
}
