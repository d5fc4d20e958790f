package dev.weft.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.error.WeftException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

class TokenArrayProperties {
  record Tokens(TokenWidth width, int[] ids) {}

  @Provide
  Arbitrary<Tokens> tokens() {
    return Arbitraries.of(TokenWidth.values()).flatMap(w -> {
      Arbitrary<Integer> id = Arbitraries.integers().between(0, (int) Math.min(Integer.MAX_VALUE, w.limit - 1));
      return id.array(int[].class).ofMaxSize(300).map(a -> new Tokens(w, a));
    });
  }

  @Property(tries = 60)
  void npyRoundTripsEveryIdWhateverTheChunking(@ForAll("tokens") Tokens t, @ForAll @IntRange(min = 1, max = 9) int chunkTokens)
      throws IOException {
    Path f = Files.createTempFile("weft-npy", ".npy");
    try {
      Npy.write(f, t.width(), t.ids());
      Npy.Header h = Npy.readHeader(f);
      assertThat(h.dataOffset() % 64).isZero();
      assertThat(h.count()).isEqualTo(t.ids().length);
      TokenArray a = new MappedTokens(f, h.dataOffset(), h.count(), h.width(), (long) chunkTokens * t.width().bytes);
      int[] back = new int[t.ids().length];
      a.read(0, back);
      assertThat(back).isEqualTo(t.ids());
      assertThat(TokenArray.npy(f).size()).isEqualTo(t.ids().length);
    } finally {
      Files.delete(f);
    }
  }

  @Example
  void readsTheHeaderNumpyWritesForACOrderedMatrix() throws IOException {
    // The exact header numpy 2.4 writes for np.save(f, np.arange(12, dtype='<i4').reshape(3, 4)).
    String dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (3, 4), }";
    Path f = Files.createTempFile("weft-npy", ".npy");
    try {
      ByteBuffer b = ByteBuffer.allocate(128 + 12 * 4).order(ByteOrder.LITTLE_ENDIAN);
      b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0}).putShort((short) 118);
      b.put((dict + " ".repeat(118 - dict.length() - 1) + "\n").getBytes(StandardCharsets.US_ASCII));
      for (int i = 0; i < 12; i++) b.putInt(i);
      Files.write(f, b.array());
      TokenArray a = TokenArray.npy(f);
      assertThat(a.size()).isEqualTo(12);
      for (int i = 0; i < 12; i++) assertThat(a.get(i)).isEqualTo(i);
      assertThat(Npy.readHeader(f).shape()).containsExactly(3, 4);
    } finally {
      Files.delete(f);
    }
  }

  @Example
  void readsTokensPastTwoGigabytesWithoutLoadingThem() throws IOException {
    long count = 1_600_000_000L; // 3.2 GB of uint16: past both 2^31 bytes and one 1 GiB mapping chunk
    Path f = Files.createTempFile("weft-npy-big", ".npy");
    try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
      byte[] header = Npy.header(TokenWidth.UINT16, count);
      raf.write(header);
      raf.setLength(header.length + count * 2); // sparse: costs no disk
      long[] at = {0, (1L << 29) - 1, 1L << 29, (1L << 30) + 12345, count - 1};
      for (int k = 0; k < at.length; k++) {
        raf.seek(header.length + at[k] * 2);
        raf.write(new byte[] {(byte) (k + 1), (byte) 0xF0});
      }
      TokenArray a = TokenArray.npy(f);
      assertThat(a.size()).isEqualTo(count);
      for (int k = 0; k < at.length; k++) assertThat(a.get(at[k])).isEqualTo(0xF000 | (k + 1));
      assertThat(a.get(1L << 30)).isZero();
    } finally {
      Files.delete(f);
    }
  }

  @Example
  void refusesWhatIsNotTokenIds() throws IOException {
    Path f = Files.createTempFile("weft-npy", ".npy");
    try {
      String dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
      Files.write(f, concat(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (byte) (dict.length() + 1), 0},
          (dict + "\n").getBytes(StandardCharsets.US_ASCII), new byte[8]));
      assertThatThrownBy(() -> TokenArray.npy(f)).isInstanceOf(WeftException.class).hasMessageContaining("uint16 or int32");
      Files.write(f, Npy.header(TokenWidth.UINT16, 10));
      assertThatThrownBy(() -> TokenArray.npy(f)).isInstanceOf(WeftException.class).hasMessageContaining("truncated");
      Files.writeString(f, "hello");
      assertThatThrownBy(() -> TokenArray.npy(f)).isInstanceOf(WeftException.class).hasMessageContaining("not a NumPy");
    } finally {
      Files.delete(f);
    }
  }

  private static byte[] concat(byte[]... parts) {
    ByteBuffer b = ByteBuffer.allocate(java.util.Arrays.stream(parts).mapToInt(p -> p.length).sum());
    for (byte[] p : parts) b.put(p);
    return b.array();
  }
}
