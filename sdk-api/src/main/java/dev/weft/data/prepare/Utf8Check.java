package dev.weft.data.prepare;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Where a file stops being UTF-8. A reader's decoder reads ahead, so it cannot say which byte was wrong;
 * this second pass, made only once a file has been refused, finds the first offending byte exactly.
 */
final class Utf8Check {
  private Utf8Check() {}

  /** "byte 0xFF at offset 1234" (a character cut by the end of the file: its first byte). */
  static String firstInvalid(Path file) {
    CharsetDecoder d = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.allocate(1 << 16);
    CharBuffer out = CharBuffer.allocate(1 << 16);
    long consumed = 0; // bytes before in's position 0
    try (InputStream s = Files.newInputStream(file)) {
      boolean eof = false;
      while (true) {
        int n = eof ? -1 : s.read(in.array(), in.position(), in.remaining());
        if (n < 0) eof = true; else in.position(in.position() + n);
        in.flip();
        CoderResult r = d.decode(in, out, eof);
        if (r.isError()) {
          long at = consumed + in.position();
          return String.format(Locale.ROOT, "byte 0x%02X at offset %d", in.get(in.position()) & 0xFF, at);
        }
        out.clear();
        consumed += in.position();
        in.compact();
        if (eof) return "no invalid byte on a second read (" + consumed + " bytes); did it change while being read?";
      }
    } catch (IOException e) {
      return "(cannot read it again: " + e.getMessage() + ")";
    }
  }
}
