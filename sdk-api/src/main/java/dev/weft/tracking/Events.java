package dev.weft.tracking;

/**
 * TensorBoard's {@code Event} records (tensorflow/core/util/event.proto, summary.proto, tensor.proto), encoded with
 * {@link Protobuf}: {@code Event{wall_time=1 double, step=2 int64, file_version=3 string, summary=5}},
 * {@code Summary{value=1 repeated}}, {@code Summary.Value{tag=1, simple_value=2 float, tensor=8, metadata=9}},
 * {@code SummaryMetadata{plugin_data=1{plugin_name=1}}}, {@code TensorProto{dtype=1, tensor_shape=2, string_val=8}}.
 */
final class Events {
  /** The first record of every event file: the format version TensorBoard's readers expect. */
  static final String FILE_VERSION = "brain.Event:2";
  private static final int DT_STRING = 7;

  private Events() {}

  static byte[] fileVersion(double wallTime) {
    return new Protobuf().fixed64(1, wallTime).varint(2, 0).string(3, FILE_VERSION).toBytes();
  }

  /** A scalar as TensorBoard's scalars dashboard reads it (a float {@code simple_value}). */
  static byte[] scalar(double wallTime, long step, String tag, double value) {
    Protobuf v = new Protobuf().string(1, tag).fixed32(2, (float) value);
    return event(wallTime, step, v);
  }

  /** Text for TensorBoard's text dashboard: a scalar string tensor under the {@code text} plugin. */
  static byte[] text(double wallTime, long step, String tag, String text) {
    Protobuf tensor = new Protobuf().varint(1, DT_STRING).message(2, new Protobuf())
        .bytes(8, text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    Protobuf metadata = new Protobuf().message(1, new Protobuf().string(1, "text"));
    Protobuf v = new Protobuf().string(1, tag).message(8, tensor).message(9, metadata);
    return event(wallTime, step, v);
  }

  private static byte[] event(double wallTime, long step, Protobuf value) {
    Protobuf summary = new Protobuf().message(1, value);
    return new Protobuf().fixed64(1, wallTime).varint(2, step).message(5, summary).toBytes();
  }
}
