package dev.weft.tracking;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One TensorBoard event file, {@code events.out.tfevents.SECONDS.HOST.PID.N} in its directory (the name TensorBoard
 * looks for), opened with the file-version record; scalars and text appended as {@code Event} records in TFRecord
 * framing. {@link #flush()} hands what was written to the OS so a running TensorBoard sees each step.
 */
public final class TensorBoardWriter implements AutoCloseable {
  private static final AtomicInteger OPENED = new AtomicInteger();

  private final Path file;
  private final OutputStream out;

  private TensorBoardWriter(Path file, OutputStream out) {
    this.file = file;
    this.out = out;
  }

  /** A new event file in {@code dir} (created when missing). */
  public static TensorBoardWriter open(Path dir) throws IOException {
    Files.createDirectories(dir);
    long now = System.currentTimeMillis();
    String name = "events.out.tfevents." + now / 1000 + "." + host() + "." + ProcessHandle.current().pid() + "."
        + String.format(java.util.Locale.ROOT, "%06d", OPENED.incrementAndGet()); // read in name order: a rotated run's files stay in order
    Path file = dir.resolve(name);
    TensorBoardWriter w = new TensorBoardWriter(file, new BufferedOutputStream(
        Files.newOutputStream(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)));
    w.record(Events.fileVersion(now / 1000.0));
    w.flush();
    return w;
  }

  public Path file() { return file; }

  public void scalar(long step, String tag, double value) { record(Events.scalar(wallTime(), step, tag, value)); }

  public void text(long step, String tag, String text) { record(Events.text(wallTime(), step, tag, text)); }

  public void flush() {
    try {
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  @Override
  public void close() {
    try {
      out.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close " + file, e);
    }
  }

  private void record(byte[] event) {
    try {
      TfRecords.write(out, event);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private static double wallTime() { return System.currentTimeMillis() / 1000.0; }

  private static String host() {
    try {
      return InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "_");
    } catch (IOException e) {
      return "localhost";
    }
  }
}
