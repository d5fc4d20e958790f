package dev.weft.data.prepare;

import dev.weft.data.PreferenceShards;
import dev.weft.data.ShardIndex;
import dev.weft.data.ShardWriter;
import dev.weft.spec.SpecException;
import dev.weft.tokenizer.Tokenizer;
import dev.weft.tokenizer.chat.ChatEncoder;
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
   * What to prepare. {@code format} is {@code auto}, {@code text}, {@code jsonl}, {@code chat} or {@code preference}; {@code field} null
   * means the format's default ({@code text}, or {@code messages} for chat); {@code separator} -1 means none
   * (documents run together); {@code replaceInvalid} turns bytes that are not UTF-8 into U+FFFD instead of refusing
   * the file; {@code trainOn} says which tokens of chat data are targets (the shards of chat data carry flags);
   * {@code length} bounds each document or conversation.
   */
  public record Request(Tokenizer tokenizer, List<Path> inputs, Path out, String format, String field, long shardTokens,
                        int separator, boolean replaceInvalid, ChatEncoder.TrainOn trainOn, LengthPolicy length) {
    public Request {
      trainOn = trainOn == null ? ChatEncoder.TrainOn.ASSISTANT : trainOn;
      length = length == null ? LengthPolicy.NONE : length;
    }

    public Request(Tokenizer tokenizer, List<Path> inputs, Path out, String format, String field, long shardTokens,
                   int separator, boolean replaceInvalid) {
      this(tokenizer, inputs, out, format, field, shardTokens, separator, replaceInvalid, ChatEncoder.TrainOn.ASSISTANT, LengthPolicy.NONE);
    }

    public Request(Tokenizer tokenizer, List<Path> inputs, Path out, String format, String field, long shardTokens, int separator) {
      this(tokenizer, inputs, out, format, field, shardTokens, separator, false);
    }
  }

  /** Told how far preparation is, in input bytes. */
  public interface Progress {
    void update(long bytesDone, long bytesTotal, long tokens);

    /** A line about what was done (how targets were found, what the length policy cost), after the bar. */
    default void note(String line) {}
  }

  public static ShardIndex run(Request r, Progress progress) {
    long total = 0;
    boolean chat = false, plain = false;
    for (Path in : r.inputs()) {
      boolean c = InputFormat.of(r.format(), in) == InputFormat.CHAT;
      chat |= c;
      plain |= !c;
      total += size(in);
    }
    if (chat && plain) throw new SpecException("--format", "chat data and plain text cannot share one dataset; prepare them apart");
    if (Files.exists(r.out().resolve(ShardIndex.FILE))) {
      throw new SpecException("--out", r.out() + " already holds prepared data; choose a new directory or delete it");
    }
    long bytesTotal = total;
    long[] done = {0};
    if (r.inputs().stream().anyMatch(in -> InputFormat.of(r.format(), in) == InputFormat.PREFERENCE)) return pairs(r, progress, bytesTotal);
    try (ShardWriter w = new ShardWriter(r.out(), r.tokenizer().vocabSize(), r.tokenizer().describe(), r.separator(),
        r.shardTokens(), chat)) {
      Truncator sink = new Truncator(w, r.length());
      if (chat) {
        ChatPrepare c = new ChatPrepare(r.tokenizer(), r.trainOn(), sink);
        for (Path in : r.inputs()) {
          c.read(in, field(r, InputFormat.CHAT), r.replaceInvalid(), n -> {
            done[0] += n;
            progress.update(done[0], bytesTotal, w.tokens());
          });
        }
        progress.update(bytesTotal, bytesTotal, w.tokens());
        progress.note("targets: " + c.method() + "; " + String.format("%,d target tokens", sink.targets) + lengthNote(r, sink, "conversations"));
        if (sink.targets == 0) {
          throw new SpecException("--input", "no conversation has a token to learn (" + c.method() + " found none"
              + (sink.targetsLost > 0 ? " that --max-length kept" : "") + "); give conversations with assistant turns, "
              + "or pass --train-on all");
        }
        return w.finish();
      }
      // progress is told after each batch is written, with the bytes read by then: its tokens count is never behind
      Batched batched = new Batched(r.tokenizer(), sink, bytes -> progress.update(bytes, bytesTotal, w.tokens()), () -> done[0]);
      for (Path in : r.inputs()) {
        InputFormat f = InputFormat.of(r.format(), in);
        Documents.read(in, f, field(r, f), r.replaceInvalid(), batched, n -> done[0] += n);
      }
      batched.flush();
      progress.update(bytesTotal, bytesTotal, w.tokens());
      String length = lengthNote(r, sink, "documents");
      if (!length.isEmpty()) progress.note(length.substring(2));
      return w.finish();
    }
  }

  /** Preference rows → pairs (every input must be preference data: {@code --format preference} names them all). */
  private static ShardIndex pairs(Request r, Progress progress, long bytesTotal) {
    long[] done = {0};
    try (PreferenceShards.Writer w = new PreferenceShards.Writer(r.out(), r.tokenizer().vocabSize(), r.tokenizer().describe(),
        r.shardTokens())) {
      PreferencePrepare p = new PreferencePrepare(r.tokenizer(), w);
      for (Path in : r.inputs()) {
        p.read(in, r.replaceInvalid(), n -> {
          done[0] += n;
          progress.update(done[0], bytesTotal, w.tokens());
        });
      }
      progress.update(bytesTotal, bytesTotal, w.tokens());
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
    private final Truncator out;
    private final List<String> pieces = new ArrayList<>();
    private final List<Integer> ends = new ArrayList<>(); // documents ending after each piece
    private final java.util.function.LongConsumer written;
    private final java.util.function.LongSupplier bytesRead;
    private long chars, bytesOfPieces;

    Batched(Tokenizer tokenizer, Truncator out, java.util.function.LongConsumer written, java.util.function.LongSupplier bytesRead) {
      this.tokenizer = tokenizer;
      this.out = out;
      this.written = written;
      this.bytesRead = bytesRead;
    }

    @Override
    public void piece(String text) {
      bytesOfPieces = bytesRead.getAsLong();
      pieces.add(text);
      ends.add(0);
      chars += text.length();
      if (chars >= MAX_CHARS || pieces.size() >= MAX_PIECES) flush();
    }

    @Override
    public void endDocument() {
      if (ends.isEmpty()) out.endDocument(true); else ends.set(ends.size() - 1, ends.get(ends.size() - 1) + 1);
    }

    void flush() {
      List<int[]> ids = tokenizer.encodeBatch(pieces);
      for (int i = 0; i < ids.size(); i++) {
        out.append(ids.get(i));
        for (int e = 0; e < ends.get(i); e++) out.endDocument(true);
      }
      boolean any = !pieces.isEmpty();
      pieces.clear();
      ends.clear();
      chars = 0;
      if (any) written.accept(bytesOfPieces);
    }
  }

  /** "; N conversations longer than M tokens: K truncated (right), T target tokens lost", or "" when none were. */
  private static String lengthNote(Request r, Truncator t, String what) {
    if (!r.length().limits() || t.truncated + t.dropped == 0) return "";
    String done = t.dropped > 0 ? String.format("%,d dropped", t.dropped)
        : String.format("%,d truncated (%s)", t.truncated, r.length().truncation().name().toLowerCase(java.util.Locale.ROOT));
    return String.format("; %,d %s longer than %,d tokens: %s, %,d target tokens lost", t.truncated + t.dropped, what,
        r.length().maxLength(), done, t.targetsLost);
  }

  private static String field(Request r, InputFormat f) { return r.field() != null ? r.field() : f.defaultField(); }

  static long size(Path in) {
    if (!Files.isRegularFile(in)) throw new SpecException("--input", in + " is not a readable file; fix the path");
    try {
      return Files.size(in);
    } catch (IOException e) {
      throw new SpecException("--input", "cannot read " + in + ": " + e.getMessage());
    }
  }
}
