package dev.weft.checkpoint;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.util.BoundedFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

/**
 * A safetensors file opened for reading, its header checked before anything is trusted, as strictly
 * as the reference implementation: the header length is capped and must fit the file, the JSON is
 * UTF-8, parsed with nesting and string limits and refused on a duplicate name, every tensor's dtype,
 * shape and byte range must agree, and the ranges tile the data section exactly. Each failure is a {@link CorruptCheckpointException} naming the file. Tensor bytes are
 * read on demand, never more than a header entry (already checked against the file size) names.
 */
public final class SafetensorsFile {
  /** Headers larger than this are refused (real headers are kilobytes to a few megabytes). */
  public static final long MAX_HEADER_BYTES = 100_000_000L; // the reference implementation's limit

  private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(16).maxStringLength(1 << 20)
          .maxNumberLength(40).build())
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build()).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  /** One tensor of the file: bytes {@code [begin, end)} of the data section. */
  public record Entry(String name, DType dtype, long[] shape, long begin, long end) {
    public long numel() { return TensorSlice.product(shape); }
  }

  private final Path file;
  private final long dataStart;
  private final long dataLength;
  private final Map<String, Entry> entries;
  private final Map<String, String> metadata;

  private SafetensorsFile(Path file, long dataStart, long dataLength, Map<String, Entry> entries, Map<String, String> metadata) {
    this.file = file;
    this.dataStart = dataStart;
    this.dataLength = dataLength;
    this.entries = entries;
    this.metadata = metadata;
  }

  /** Opens and checks the header of {@code file}, which must be a regular file (a FIFO or device is refused, never read). */
  public static SafetensorsFile open(Path file) {
    try (FileChannel ch = BoundedFiles.open(file)) {
      long size = ch.size();
      if (size < 8) throw bad(file, "is " + size + " bytes, shorter than the 8-byte header length");
      ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      readFully(ch, len, 0, file);
      long n = len.flip().getLong();
      if (n <= 0 || n > MAX_HEADER_BYTES) {
        throw bad(file, "header length " + n + " is outside 1.." + MAX_HEADER_BYTES + " bytes; not a safetensors file?");
      }
      if (n > size - 8) throw bad(file, "header length " + n + " exceeds the file's " + (size - 8) + " bytes after it (truncated?)");
      ByteBuffer header = ByteBuffer.allocate((int) n);
      readFully(ch, header, 8, file);
      return parse(file, header.array(), size - 8 - n);
    } catch (NoSuchFileException e) {
      throw new CorruptCheckpointException(file, "is missing");
    } catch (BoundedFiles.Refused e) {
      throw new CorruptCheckpointException(file, e.getMessage());
    } catch (IOException e) {
      throw new CorruptCheckpointException(file, "cannot be read: " + e.getMessage(), e);
    }
  }

  /**
   * The header's rules are the reference implementation's (Hugging Face {@code safetensors}): UTF-8
   * JSON, one object with each name once (stricter than the reference, which keeps the last), {@code __metadata__} a map of strings, and the tensors'
   * byte ranges tiling the data section exactly — from 0, no gaps, no overlaps, nothing after.
   */
  private static SafetensorsFile parse(Path file, byte[] header, long dataLength) {
    JsonNode root;
    try {
      String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(header)).toString();
      root = JSON.readTree(text);
    } catch (CharacterCodingException e) {
      throw bad(file, "header is not valid UTF-8");
    } catch (JsonProcessingException e) {
      throw bad(file, "header is not valid JSON: " + e.getOriginalMessage());
    }
    if (root == null || !root.isObject()) throw bad(file, "header is not a JSON object");
    Map<String, Entry> entries = new LinkedHashMap<>();
    Map<String, String> metadata = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      if ("__metadata__".equals(f.getKey())) {
        readMetadata(file, f.getValue(), metadata);
      } else {
        entries.put(f.getKey(), entry(file, f.getKey(), f.getValue(), dataLength));
      }
    }
    checkTiling(file, entries.values(), dataLength);
    return new SafetensorsFile(file, 8 + header.length, dataLength,
        Collections.unmodifiableMap(entries), Collections.unmodifiableMap(metadata));
  }

  /** The byte ranges, in offset order, must cover {@code [0, dataLength)} exactly once. */
  private static void checkTiling(Path file, Collection<Entry> entries, long dataLength) {
    List<Entry> byOffset = new ArrayList<>(entries);
    byOffset.sort(Comparator.comparingLong(Entry::begin).thenComparingLong(Entry::end));
    long reach = 0;
    String prev = null;
    for (Entry cur : byOffset) {
      if (cur.begin() < reach) throw bad(file, "tensors " + prev + " and " + cur.name() + " overlap in the data section");
      if (cur.begin() > reach) {
        throw bad(file, "tensor " + cur.name() + " starts at byte " + cur.begin() + " of the data section, leaving a gap after "
            + (prev == null ? "its start" : prev) + " (which ends at " + reach + ")");
      }
      reach = cur.end();
      prev = cur.name();
    }
    if (reach != dataLength) {
      throw bad(file, "data section holds " + dataLength + " bytes but its tensors end at byte " + reach + " (trailing bytes)");
    }
  }

  private static void readMetadata(Path file, JsonNode m, Map<String, String> out) {
    if (m.isNull()) return; // the reference reads null as no metadata
    if (!m.isObject()) throw bad(file, "__metadata__ must be an object of strings");
    m.fields().forEachRemaining(e -> {
      if (!e.getValue().isTextual()) throw bad(file, "__metadata__." + e.getKey() + " must be a string");
      out.put(e.getKey(), e.getValue().asText());
    });
  }

  private static Entry entry(Path file, String name, JsonNode n, long dataLength) {
    String where = "tensor '" + name + "'";
    if (!n.isObject()) throw bad(file, where + " must be an object with dtype, shape and data_offsets");
    DType dtype = DType.fromSafetensors(n.path("dtype").isTextual() ? n.path("dtype").asText() : null);
    if (dtype == null) throw bad(file, where + " has dtype " + n.path("dtype") + ", not one of F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL");
    JsonNode s = n.path("shape");
    if (!s.isArray() || s.size() > 64) throw bad(file, where + " needs a shape array of at most 64 dimensions");
    long[] shape = new long[s.size()];
    long numel = 1;
    for (int i = 0; i < shape.length; i++) {
      shape[i] = nonNegativeLong(file, where + " shape[" + i + "]", s.get(i));
      try {
        numel = Math.multiplyExact(numel, shape[i]);
      } catch (ArithmeticException e) {
        throw bad(file, where + " has a shape whose element count overflows");
      }
    }
    JsonNode o = n.path("data_offsets");
    if (!o.isArray() || o.size() != 2) throw bad(file, where + " needs data_offsets [begin, end]");
    long begin = nonNegativeLong(file, where + " data_offsets[0]", o.get(0));
    long end = nonNegativeLong(file, where + " data_offsets[1]", o.get(1));
    if (begin > end || end > dataLength) {
      throw bad(file, where + " data_offsets [" + begin + ", " + end + "] leave the data section of " + dataLength + " bytes");
    }
    if (numel > Long.MAX_VALUE / dtype.bytes() || end - begin != numel * dtype.bytes()) {
      throw bad(file, where + " holds " + (end - begin) + " bytes but its shape and dtype " + dtype + " need " + numel + " elements");
    }
    return new Entry(name, dtype, shape, begin, end);
  }

  private static long nonNegativeLong(Path file, String what, JsonNode v) {
    if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
      throw bad(file, what + " must be a non-negative whole number, not " + v);
    }
    return v.asLong();
  }

  public Path file() { return file; }
  public Map<String, Entry> entries() { return entries; }
  public Map<String, String> metadata() { return metadata; }
  public long dataLength() { return dataLength; }
  /** Where the data section starts in the file (8 + the header length). */
  public long dataStart() { return dataStart; }

  public Entry entry(String name) {
    Entry e = entries.get(name);
    if (e == null) throw bad(file, "has no tensor '" + name + "'");
    return e;
  }

  /**
   * Reads elements {@code [first, first + count)} of tensor {@code e} into native memory at
   * {@code dst} (which must hold {@code count × dtype.bytes()} bytes).
   */
  public void read(Entry e, long first, long count, Pointer dst) {
    long w = e.dtype().bytes();
    if (first < 0 || count < 0 || first + count > e.numel()) {
      throw new IllegalArgumentException("elements [" + first + ", " + (first + count) + ") outside tensor " + e.name() + " of " + file);
    }
    long pos = dataStart + e.begin() + first * w, n = count * w;
    try (FileChannel ch = BoundedFiles.open(file)) {
      BytePointer base = new BytePointer(dst);
      for (long off = 0; off < n; off += 1 << 30) {
        long len = Math.min(1 << 30, n - off);
        readFully(ch, new BytePointer(base).position(off).limit(off + len).asByteBuffer(), pos + off, file);
      }
    } catch (IOException ex) {
      throw new CorruptCheckpointException(file, "cannot be read: " + ex.getMessage(), ex);
    }
  }

  private static void readFully(FileChannel ch, ByteBuffer b, long pos, Path file) throws IOException {
    while (b.hasRemaining()) {
      int k = ch.read(b, pos);
      if (k < 0) throw bad(file, "ends early (truncated)");
      pos += k;
    }
  }

  private static CorruptCheckpointException bad(Path file, String what) {
    return new CorruptCheckpointException(file, what);
  }
}
