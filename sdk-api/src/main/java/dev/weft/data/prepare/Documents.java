package dev.weft.data.prepare;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.error.WeftException;
import dev.weft.spec.SpecException;
import java.io.BufferedReader;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongConsumer;

/**
 * Streams the documents of one input file in pieces of bounded size, so a file of any size passes
 * through a fixed amount of memory. Long text is cut after a newline.
 */
final class Documents {
  /**
   * Characters of text handed to the tokenizer at once. Hugging Face tokenizers slow down on long
   * strings: 256 Ki-char pieces took about three times the CPU of 64 Ki (measured, 2 MB of text).
   */
  static final int PIECE_CHARS = 1 << 16;

  /** Receives text: pieces of a document, then its end. */
  interface Sink {
    void piece(String text);

    void endDocument();
  }

  private Documents() {}

  /**
   * Reads {@code file}; {@code bytesRead} is told how many bytes have been consumed as they are. Bytes that are
   * not UTF-8 refuse the file, naming the first one's offset, unless {@code replaceInvalid} turns them into U+FFFD.
   * JSONL and Parquet rows give the string in {@code field}; text is one document.
   */
  static void read(Path file, InputFormat format, String field, boolean replaceInvalid, Sink sink, LongConsumer bytesRead) {
    if (format == InputFormat.TEXT) {
      withReader(file, replaceInvalid, bytesRead, in -> text(in, sink));
      return;
    }
    Rows.read(file, replaceInvalid, bytesRead, (where, node) -> {
      JsonNode text = node.get(field);
      if (text == null || !text.isTextual()) {
        throw new SpecException("--field", where + " has no string field '" + field
            + "'; name the field that holds the text with --field" + (text != null && text.isArray() ? ", or use --format chat for messages" : ""));
      }
      sink.piece(text.textValue());
      sink.endDocument();
    });
  }

  /** What is done with a file's characters. */
  interface ReaderBody {
    void read(BufferedReader in) throws IOException;
  }

  /** Runs {@code body} over {@code file} decoded as UTF-8 (see {@link #read}), counting the bytes consumed. */
  static void withReader(Path file, boolean replaceInvalid, LongConsumer bytesRead, ReaderBody body) {
    CodingErrorAction onBad = replaceInvalid ? CodingErrorAction.REPLACE : CodingErrorAction.REPORT;
    try (InputStream raw = new Counting(Files.newInputStream(file), bytesRead);
         BufferedReader in = new BufferedReader(new InputStreamReader(raw, StandardCharsets.UTF_8.newDecoder()
             .onMalformedInput(onBad).onUnmappableCharacter(onBad)), 1 << 16)) {
      body.read(in);
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new SpecException("--input", file + " is not UTF-8: " + Utf8Check.firstInvalid(file)
          + "; fix the file, or pass --replace-invalid to read such bytes as U+FFFD");
    } catch (IOException e) {
      throw new WeftException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static void text(BufferedReader in, Sink sink) throws IOException {
    StringBuilder sb = new StringBuilder();
    char[] buf = new char[1 << 16];
    for (int n; (n = in.read(buf)) > 0; ) {
      sb.append(buf, 0, n);
      if (sb.length() >= PIECE_CHARS) {
        int cut = sb.lastIndexOf("\n") + 1;
        if (cut == 0) cut = sb.length() - (Character.isHighSurrogate(sb.charAt(sb.length() - 1)) ? 1 : 0);
        sink.piece(sb.substring(0, cut));
        sb.delete(0, cut);
      }
    }
    if (sb.length() > 0) sink.piece(sb.toString());
    sink.endDocument();
  }

  /** Counts the bytes read from the file (what the progress bar shows). */
  private static final class Counting extends FilterInputStream {
    private final LongConsumer read;

    Counting(InputStream in, LongConsumer read) {
      super(in);
      this.read = read;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) read.accept(1);
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) read.accept(n);
      return n;
    }
  }
}
