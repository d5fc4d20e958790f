package dev.weft.data;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A 1-D {@code .npy} file written as a stream: the header is written with a placeholder length and rewritten
 * (same size) by {@link #finish()}, once the length is known.
 */
final class NpyStream implements AutoCloseable {
  private static final int BUFFER_BYTES = 1 << 20;

  private final TokenWidth width;
  private final FileChannel channel;
  private final ByteBuffer buf = ByteBuffer.allocate(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private long count;

  NpyStream(Path file, TokenWidth width) throws IOException {
    this.width = width;
    this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE);
    channel.write(ByteBuffer.wrap(Npy.header(width, 0)));
  }

  void write(int value) throws IOException {
    if (buf.remaining() < width.bytes) flush();
    width.write(buf, value);
    count++;
  }

  long count() { return count; }

  private void flush() throws IOException {
    buf.flip();
    while (buf.hasRemaining()) channel.write(buf);
    buf.clear();
  }

  /** Writes what is buffered, then the header with the final length, and closes the file. */
  void finish() throws IOException {
    flush();
    byte[] header = Npy.header(width, count);
    if (header.length != Npy.header(width, 0).length) throw new IllegalStateException("npy header grew");
    channel.write(ByteBuffer.wrap(header), 0);
    channel.close();
  }

  @Override
  public void close() throws IOException { channel.close(); }
}
