package dev.weft.tokenizer;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.CharSpan;
import ai.djl.huggingface.tokenizers.jni.TokenizersLibrary;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.error.WeftException;
import dev.weft.spec.SpecException;
import dev.weft.util.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * A Hugging Face {@code tokenizer.json} (byte-level BPE, SentencePiece-converted BPE or Unigram, ...)
 * run by the Rust {@code tokenizers} library through DJL's binding. The native library ships inside
 * the DJL jar and is unpacked under {@code DJL_CACHE_DIR} (default {@code ~/.djl.ai}); loading a
 * local file needs no network. The vocabulary size and the end-of-document token are read from the
 * JSON itself.
 */
public final class HfTokenizer implements Tokenizer {
  /** End-of-document tokens, most common first, looked for among the special added tokens. */
  static final List<String> SEPARATORS = List.of("<|endoftext|>", "</s>", "<|end_of_text|>", "<eos>", "<|eot_id|>");
  private static final Map<String, String> OPTIONS =
      Map.of("addSpecialTokens", "false", "truncation", "false", "padding", "false");

  private final Path file;
  private final HuggingFaceTokenizer tok;
  private final long vocab;
  private final OptionalInt separator;

  private HfTokenizer(Path file, HuggingFaceTokenizer tok, long vocab, OptionalInt separator) {
    this.file = file;
    this.tok = tok;
    this.vocab = vocab;
    this.separator = separator;
  }

  public static HfTokenizer open(Path path) {
    Path file = Files.isDirectory(path) ? path.resolve("tokenizer.json") : path;
    if (!Files.isRegularFile(file)) {
      throw new SpecException("--tokenizer", path + " is neither a tokenizer.json nor a directory holding one; "
          + "give the path of a Hugging Face tokenizer.json or 'bytes'");
    }
    JsonNode json;
    try {
      json = Json.PLAIN.readTree(file.toFile());
    } catch (IOException e) {
      throw new SpecException("--tokenizer", file + " is not valid JSON (" + e.getMessage().lines().findFirst().orElse("") + ")");
    }
    try {
      return new HfTokenizer(file, HuggingFaceTokenizer.newInstance(file, OPTIONS), vocabSize(json), separator(json));
    } catch (IOException | RuntimeException e) {
      throw new WeftException("--tokenizer: cannot load " + file + ": " + e.getMessage(), e);
    }
  }

  /** One more than the largest id in the model's vocabulary or the added tokens. */
  static long vocabSize(JsonNode json) {
    long max = -1;
    JsonNode v = json.path("model").path("vocab");
    if (v.isObject()) {
      for (JsonNode id : (Iterable<JsonNode>) v::elements) max = Math.max(max, id.asLong());
    } else if (v.isArray()) {
      max = v.size() - 1; // Unigram: [piece, score] pairs, the id is the position
    }
    for (JsonNode t : json.path("added_tokens")) max = Math.max(max, t.path("id").asLong());
    if (max < 0) throw new SpecException("--tokenizer", "the tokenizer.json has no vocabulary (model.vocab is empty)");
    return max + 1;
  }

  static OptionalInt separator(JsonNode json) {
    for (String s : SEPARATORS) {
      for (JsonNode t : json.path("added_tokens")) {
        if (t.path("special").asBoolean() && s.equals(t.path("content").asText())) return OptionalInt.of(t.path("id").asInt());
      }
    }
    return OptionalInt.empty();
  }

  // Straight to the ids through DJL's JNI layer: its Encoding object also builds every token's
  // string and character span, which made encoding several times slower.
  @Override
  public int[] encode(String text) {
    long enc = TokenizersLibrary.LIB.encode(tok.getHandle(), text, false);
    try {
      return ints(TokenizersLibrary.LIB.getTokenIds(enc));
    } finally {
      TokenizersLibrary.LIB.deleteEncoding(enc);
    }
  }

  @Override
  public List<int[]> encodeBatch(List<String> texts) {
    long[] encs = TokenizersLibrary.LIB.batchEncode(tok.getHandle(), texts.toArray(String[]::new), false);
    List<int[]> out = new ArrayList<>(encs.length);
    try {
      for (long enc : encs) out.add(ints(TokenizersLibrary.LIB.getTokenIds(enc)));
    } finally {
      for (long enc : encs) TokenizersLibrary.LIB.deleteEncoding(enc);
    }
    return out;
  }

  /** Ids and, per token, the [start, end) offsets in {@code text} it came from, counted in code points as Python counts. */
  public record Offsets(int[] ids, int[] starts, int[] ends) {}

  /** {@link #encode} with each token's code-point span in {@code text} (what transformers' char_to_token reads). */
  public Offsets encodeWithOffsets(String text) {
    long enc = TokenizersLibrary.LIB.encode(tok.getHandle(), text, false);
    try {
      int[] ids = ints(TokenizersLibrary.LIB.getTokenIds(enc));
      CharSpan[] spans = TokenizersLibrary.LIB.getTokenCharSpans(enc);
      int[] starts = new int[ids.length], ends = new int[ids.length];
      for (int i = 0; i < ids.length; i++) {
        starts[i] = spans[i] == null ? -1 : spans[i].getStart();
        ends[i] = spans[i] == null ? -1 : spans[i].getEnd();
      }
      return new Offsets(ids, starts, ends);
    } finally {
      TokenizersLibrary.LIB.deleteEncoding(enc);
    }
  }

  /** The {@code tokenizer.json} this was loaded from (its directory holds {@code tokenizer_config.json}). */
  public Path file() { return file; }

  private static int[] ints(long[] ids) {
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) out[i] = Math.toIntExact(ids[i]);
    return out;
  }

  @Override
  public String decode(int[] ids) {
    long[] l = new long[ids.length];
    for (int i = 0; i < ids.length; i++) l[i] = ids[i];
    return tok.decode(l, true);
  }

  @Override
  public long vocabSize() { return vocab; }

  @Override
  public OptionalInt separator() { return separator; }

  @Override
  public String describe() { return file.toString(); }

  @Override
  public void close() { tok.close(); }
}
