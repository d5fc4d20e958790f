package dev.weft.log;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * A {@code System.out}/{@code System.err} that turns every line written to it into a {@link JsonLine}
 * (logger {@code stdout} or {@code stderr}, the stream's level) unless it already is a JSON object, which
 * passes as it is (the loggers' own lines, and the workers' lines a launcher relays).
 */
final class JsonLinesStream extends PrintStream {
  private final PrintStream target;

  JsonLinesStream(PrintStream target, String level) {
    super(new LineSplitter(target, level), true, StandardCharsets.UTF_8);
    this.target = target;
  }

  PrintStream target() { return target; }

  private static final class LineSplitter extends OutputStream {
    private final PrintStream target;
    private final String level;
    private final String logger;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    LineSplitter(PrintStream target, String level) {
      this.target = target;
      this.level = level;
      this.logger = "ERROR".equals(level) ? "stderr" : "stdout";
    }

    @Override public synchronized void write(int b) {
      if (b == '\n') {
        emit();
      } else {
        line.write(b);
      }
    }

    @Override public synchronized void write(byte[] b, int off, int len) {
      for (int i = off; i < off + len; i++) write(b[i]);
    }

    @Override public synchronized void flush() { target.flush(); }

    @Override public synchronized void close() {
      if (line.size() > 0) emit();
      target.flush();
    }

    private void emit() {
      String text = line.toString(StandardCharsets.UTF_8);
      line.reset();
      if (text.endsWith("\r")) text = text.substring(0, text.length() - 1);
      if (text.isBlank()) return;
      target.println(JsonLine.isObject(text) ? text : JsonLine.now(level, logger, text));
      target.flush();
    }
  }
}
