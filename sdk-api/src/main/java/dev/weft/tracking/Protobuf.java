package dev.weft.tracking;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The few protocol-buffer wire types TensorBoard's {@code Event} needs, written by hand (no protobuf dependency): a
 * message is built field by field, each as its tag ({@code number << 3 | wire type}) and its value, fields in
 * number order. Wire types: 0 varint, 1 fixed 64-bit, 2 length-delimited, 5 fixed 32-bit.
 */
final class Protobuf {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  Protobuf varint(int field, long value) {
    tag(field, 0);
    rawVarint(value);
    return this;
  }

  Protobuf fixed64(int field, double value) {
    tag(field, 1);
    long bits = Double.doubleToRawLongBits(value);
    for (int i = 0; i < 8; i++) out.write((int) (bits >>> (8 * i)));
    return this;
  }

  Protobuf fixed32(int field, float value) {
    tag(field, 5);
    int bits = Float.floatToRawIntBits(value);
    for (int i = 0; i < 4; i++) out.write(bits >>> (8 * i));
    return this;
  }

  Protobuf bytes(int field, byte[] value) {
    tag(field, 2);
    rawVarint(value.length);
    out.writeBytes(value);
    return this;
  }

  Protobuf string(int field, String value) { return bytes(field, value.getBytes(StandardCharsets.UTF_8)); }

  Protobuf message(int field, Protobuf value) { return bytes(field, value.toBytes()); }

  byte[] toBytes() { return out.toByteArray(); }

  private void tag(int field, int wireType) { rawVarint(((long) field << 3) | wireType); }

  private void rawVarint(long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }
}
