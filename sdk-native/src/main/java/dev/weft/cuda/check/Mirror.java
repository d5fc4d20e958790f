package dev.weft.cuda.check;

import dev.weft.cuda.DeviceBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.bytedeco.javacpp.Pointer;

/**
 * The same bytes on the host (a direct buffer, owned by the JVM) and on the device (owned here). The host side
 * is where the CPU reference runs; the device side where the kernel runs; {@link #download()} brings it back.
 */
final class Mirror implements AutoCloseable {
  final ByteBuffer host;
  final DeviceBuffer device;

  Mirror(long bytes) {
    host = ByteBuffer.allocateDirect(Math.toIntExact(bytes)).order(ByteOrder.nativeOrder());
    device = DeviceBuffer.allocate(bytes);
  }

  long hostAddress() { return addressOf(host); }

  long deviceAddress() { return device.address(); }

  /** Host to device. */
  Mirror upload() {
    device.copyFrom(hostAddress(), host.capacity());
    return this;
  }

  /** The device bytes, in a new host buffer. */
  ByteBuffer download() {
    ByteBuffer out = ByteBuffer.allocateDirect(host.capacity()).order(ByteOrder.nativeOrder());
    device.copyTo(addressOf(out), out.capacity());
    return out;
  }

  static long addressOf(ByteBuffer b) { return b.capacity() == 0 ? 0 : new Pointer(b).address(); }

  @Override
  public void close() { device.close(); }
}
