package dev.weft.tokenizer;

import java.util.OptionalInt;

/** Text to token ids and back. */
public interface Tokenizer extends AutoCloseable {
  /** The ids of {@code text}, without special tokens (no BOS/EOS added). */
  int[] encode(String text);

  /** The ids of each text, in order (a tokenizer may encode them in parallel). */
  default java.util.List<int[]> encodeBatch(java.util.List<String> texts) {
    return texts.stream().map(this::encode).toList();
  }

  /** The text of {@code ids} (special tokens dropped). */
  String decode(int[] ids);

  /** Every id is below this. */
  long vocabSize();

  /** The token that ends a document, when the tokenizer has one. */
  OptionalInt separator();

  /** A one-line description for logs and indexes. */
  String describe();

  @Override
  void close();

  /**
   * {@code bytes} (UTF-8 bytes, 256 ids), or a Hugging Face {@code tokenizer.json} (or the directory
   * holding it), loaded with no network.
   */
  static Tokenizer open(String what) {
    return "bytes".equals(what) ? new ByteTokenizer() : HfTokenizer.open(java.nio.file.Path.of(what));
  }
}
