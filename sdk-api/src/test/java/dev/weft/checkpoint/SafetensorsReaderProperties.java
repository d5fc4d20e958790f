package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Random, truncated and mutated bytes fed to the reader: it either opens a consistent file or
 * throws {@link CorruptCheckpointException} naming the file, quickly, without reading or allocating
 * more than the file holds.
 */
class SafetensorsReaderProperties {
  private static Path dir;
  private static byte[] valid;

  @BeforeContainer
  static void setUp() throws IOException {
    dir = Files.createTempDirectory("weft-st-fuzz");
    Path f = dir.resolve("valid.safetensors");
    Tensor a = torch.arange(new Scalar(12)).to(torch.ScalarType.Float).view(3, 4);
    Tensor b = torch.arange(new Scalar(5)).to(torch.ScalarType.Long);
    SafetensorsWriter.write(f, List.of(new SafetensorsWriter.Item("a", DType.F32, new long[] {3, 4}, a),
        new SafetensorsWriter.Item("b", DType.I64, new long[] {5}, b)), Map.of("format", "pt"));
    valid = Files.readAllBytes(f);
  }

  @AfterContainer
  static void tearDown() throws IOException { FileSync.deleteTree(dir); }

  @Property(tries = 300)
  void randomBytesAreRefusedOrConsistent(@ForAll("blobs") byte[] bytes) {
    openAndReadAll(bytes);
  }

  @Property(tries = 200)
  void truncatedFilesAreRefused(@ForAll @IntRange(min = 0, max = 10_000) int cut) {
    int n = cut % valid.length; // strictly shorter than the file
    byte[] b = java.util.Arrays.copyOf(valid, n);
    Path f = write(b);
    assertThatThrownBy(() -> openAndRead(f)).isInstanceOf(CorruptCheckpointException.class).hasMessageContaining(f.toString());
  }

  @Property(tries = 300)
  void mutatedFilesAreRefusedOrConsistent(@ForAll @IntRange(min = 0, max = 100_000) int pos, @ForAll byte value,
                                          @ForAll("bigLengths") long headerLength, @ForAll boolean patchLength) {
    byte[] b = valid.clone();
    b[pos % b.length] = value;
    if (patchLength) ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(0, headerLength);
    openAndReadAll(b);
  }

  @Example
  void overlappingOffsetsNameTheFile() {
    Path f = write(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12));
    assertThatThrownBy(() -> SafetensorsFile.open(f)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining(f.toString()).hasMessageContaining("overlap");
  }

  @Example
  void outOfRangeOffsetsAndShapeMismatchesAreRefused() {
    Path f1 = write(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 8));
    assertThatThrownBy(() -> SafetensorsFile.open(f1)).hasMessageContaining("leave the data section");
    Path f2 = write(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8));
    assertThatThrownBy(() -> SafetensorsFile.open(f2)).hasMessageContaining("need 3 elements");
    Path f3 = write(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[9223372036854775807,4],\"data_offsets\":[0,8]}}", 8));
    assertThatThrownBy(() -> SafetensorsFile.open(f3)).hasMessageContaining("overflows");
    Path f4 = write(file("{\"a\":{\"dtype\":\"Q4\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8));
    assertThatThrownBy(() -> SafetensorsFile.open(f4)).hasMessageContaining("dtype");
  }

  /** Issue 31 item 2: a tensor named twice (Weft's last-one-wins reader loaded it) is refused, whatever the second entry says. */
  @Property(tries = 60)
  void aHeaderNamingATensorTwiceIsRefused(@ForAll @IntRange(min = 0, max = 10) int member, @ForAll boolean sameEntry) throws IOException {
    int n = (int) ByteBuffer.wrap(valid).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
    com.fasterxml.jackson.databind.JsonNode header = ManifestIO.json().readTree(java.util.Arrays.copyOfRange(valid, 8, 8 + n));
    byte[] h = JsonDup.write(header, 0, member, sameEntry ? null : header.get("b"));
    Path f = write(file(new String(h, StandardCharsets.UTF_8), valid.length - 8 - n));
    assertThatThrownBy(() -> SafetensorsFile.open(f)).isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("Duplicate field");
  }

  /** The byte ranges must tile the data exactly, as the reference requires: a shifted range, a gap or trailing bytes are refused. */
  @Property(tries = 200)
  void rangesThatDoNotTileTheDataAreRefused(@ForAll boolean shiftFirst, @ForAll @IntRange(min = -12, max = 12) int shift,
                                            @ForAll @IntRange(min = 0, max = 3) int trailing) {
    long a0 = shiftFirst ? shift : 0, b0 = 48 + (shiftFirst ? 0 : shift);
    String json = "{\"a\":{\"dtype\":\"F32\",\"shape\":[3,4],\"data_offsets\":[" + a0 + "," + (a0 + 48) + "]},"
        + "\"b\":{\"dtype\":\"I64\",\"shape\":[5],\"data_offsets\":[" + b0 + "," + (b0 + 40) + "]}}";
    Path f = write(file(json, 88 + trailing));
    if (shift == 0 && trailing == 0) {
      assertThat(SafetensorsFile.open(f).entries()).containsOnlyKeys("a", "b");
    } else {
      assertThatThrownBy(() -> SafetensorsFile.open(f)).isInstanceOf(CorruptCheckpointException.class).hasMessageContaining(f.toString());
    }
  }

  @Example
  void theReferenceRulesOnTextDtypeAndMetadata() {
    byte[] bad = file("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"x\u00e9\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[8,8]}}", 8);
    for (int i = 0; i < bad.length - 1; i++) if ((bad[i] & 0xff) == 0xc3) bad[i + 1] = (byte) 0x28; // é's second byte broken
    Path f1 = write(bad);
    assertThatThrownBy(() -> SafetensorsFile.open(f1)).hasMessageContaining("not valid UTF-8");
    Path f2 = write(file("{\"a\":{\"dtype\":\"f32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8));
    assertThatThrownBy(() -> SafetensorsFile.open(f2)).hasMessageContaining("dtype");
    Path f3 = write(file("{\"__metadata__\":{\"k\":1},\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8));
    assertThatThrownBy(() -> SafetensorsFile.open(f3)).hasMessageContaining("__metadata__.k must be a string");
    Path f4 = write(file("{\"__metadata__\":null,\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}  ", 8));
    assertThat(SafetensorsFile.open(f4).entries()).containsOnlyKeys("a");
    Path f5 = write(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}{}", 8));
    assertThatThrownBy(() -> SafetensorsFile.open(f5)).hasMessageContaining("not valid JSON");
  }

  @Example
  void hugeHeaderLengthIsRefusedWithoutAllocating() {
    byte[] b = new byte[16];
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(0, Long.MAX_VALUE / 2);
    Path f = write(b);
    assertThatThrownBy(() -> SafetensorsFile.open(f)).isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("header length");
  }

  @Example
  void validFileReadsBack() {
    SafetensorsFile sf = SafetensorsFile.open(write(valid));
    assertThat(sf.entries()).containsOnlyKeys("a", "b");
    assertThat(sf.metadata()).containsEntry("format", "pt");
    Tensor t = torch.empty(12);
    sf.read(sf.entry("a"), 0, 12, t.data_ptr());
    assertThat(dev.weft.util.Tensors.toFloats(t)).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
  }

  private static byte[] file(String json, int dataBytes) {
    byte[] h = json.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(8 + h.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(h.length).put(h);
    return b.array();
  }

  /** Opens the file and reads every tensor it claims, into buffers sized from the validated header. */
  private static void openAndReadAll(byte[] bytes) {
    Path f = write(bytes);
    long t0 = System.nanoTime();
    try {
      openAndRead(f);
    } catch (CorruptCheckpointException e) {
      assertThat(e.getMessage()).contains(f.toString());
    }
    assertThat((System.nanoTime() - t0) / 1_000_000).as("ms to open").isLessThan(2000);
  }

  private static void openAndRead(Path f) {
    SafetensorsFile sf = SafetensorsFile.open(f);
    for (SafetensorsFile.Entry e : sf.entries().values()) {
      long n = e.end() - e.begin();
      assertThat(n).isLessThanOrEqualTo(sf.dataLength());
      BytePointer buf = new BytePointer(Math.max(1, n));
      try {
        sf.read(e, 0, e.numel(), buf);
      } finally {
        buf.close();
      }
    }
  }

  private static Path write(byte[] b) {
    try {
      Path f = Files.createTempFile(dir, "case", ".safetensors");
      Files.write(f, b);
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Provide
  Arbitrary<byte[]> blobs() {
    Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(300);
    Arbitrary<byte[]> jsonish = Arbitraries.strings().withChars("{}[]\":,0123456789abdefhpstyFIU_ -").ofMaxLength(200)
        .map(s -> file(s, s.length() % 17));
    Arbitrary<byte[]> prefixes = Arbitraries.integers().between(0, 400).map(n -> java.util.Arrays.copyOf(valid, Math.min(n, valid.length)));
    return Arbitraries.oneOf(random, jsonish, prefixes);
  }

  @Provide
  Arbitrary<Long> bigLengths() {
    return Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.longs().between(0, 400), Arbitraries.of(Long.MAX_VALUE, Long.MIN_VALUE, -1L, 0L));
  }
}
