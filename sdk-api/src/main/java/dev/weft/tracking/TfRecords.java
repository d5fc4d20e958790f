package dev.weft.tracking;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * TFRecord framing, the container of TensorBoard's event files: per record, its length (uint64, little-endian), the
 * masked CRC-32C of those 8 bytes, the data, the masked CRC-32C of the data (both uint32, little-endian). The mask
 * rotates the CRC right by 15 bits and adds {@code 0xa282ead8}, as TensorFlow's {@code crc32c::Mask}.
 */
final class TfRecords {
  private static final int MASK_DELTA = 0xa282ead8;

  private TfRecords() {}

  static void write(OutputStream out, byte[] data) throws IOException {
    ByteBuffer head = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
    head.putLong(data.length);
    head.putInt(maskedCrc(head.array(), 0, 8));
    out.write(head.array());
    out.write(data);
    out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(maskedCrc(data, 0, data.length)).array());
  }

  static int maskedCrc(byte[] b, int off, int len) {
    CRC32C crc = new CRC32C();
    crc.update(b, off, len);
    int c = (int) crc.getValue();
    return ((c >>> 15) | (c << 17)) + MASK_DELTA;
  }
}
