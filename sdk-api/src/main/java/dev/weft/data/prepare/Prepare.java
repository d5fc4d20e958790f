package dev.weft.data.prepare;

import dev.weft.data.ShardIndex;
import dev.weft.data.ShardWriter;
import dev.weft.spec.SpecException;
import dev.weft.tokenizer.Tokenizer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
      Documents.Sink sink = new Documents.Sink() {
        @Override
        public void piece(String text) { w.append(r.tokenizer().encode(text)); }

        @Override
        public void endDocument() { w.endDocument(); }
      };
      for (Path in : r.inputs()) {
        Documents.read(in, InputFormat.of(r.format(), in), r.field(), sink, n -> {
          done[0] += n;
          progress.update(done[0], bytesTotal, w.tokens());
        });
      }
      return w.finish();
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
