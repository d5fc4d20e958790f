package dev.weft.checkpoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.util.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;

/**
 * Writes one safetensors file: 8-byte little-endian header length, a JSON header padded with spaces
 * to a multiple of 8 bytes, then each tensor's raw little-endian bytes in order. The SHA-256 of the
 * file is computed on a second thread while the bytes are written, so hashing costs no extra pass.
 */
public final class SafetensorsWriter {
  private static final ObjectMapper JSON = Json.PLAIN;
  private static final int CHUNK = 8 << 20;

  /** One tensor to write; {@code data} is a contiguous CPU tensor of {@code dtype} holding {@code shape}. */
  public record Item(String name, DType dtype, long[] shape, Tensor data) {
    long bytes() { return TensorSlice.product(shape) * dtype.bytes(); }
  }

  /** The written file, its size and SHA-256 (hex). */
  public record Written(Path file, long bytes, String sha256) {}

  private SafetensorsWriter() {}

  public static Written write(Path file, List<Item> items, Map<String, String> metadata) throws IOException {
    return write(file, items, null, metadata);
  }

  /**
   * As above, but each tensor's bytes come from {@code produce} when its item is reached (the items'
   * {@code data} may be null): one tensor at a time in memory, freed once written and hashed.
   */
  public static Written write(Path file, List<Item> items, java.util.function.Function<Item, Tensor> produce,
                              Map<String, String> metadata) throws IOException {
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
      throw new CheckpointException("checkpoints are written from little-endian memory; this machine is big-endian");
    }
    byte[] header = header(items, metadata);
    ExecutorService hasher = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "weft-ckpt-sha256");
      t.setDaemon(true);
      return t;
    });
    MessageDigest md = Sha256.digest();
    long total = 0;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer prefix = ByteBuffer.allocate(8 + header.length).order(ByteOrder.LITTLE_ENDIAN);
      prefix.putLong(header.length).put(header).flip();
      ByteBuffer prefixForHash = prefix.duplicate();
      Future<?> lastHash = hasher.submit(() -> md.update(prefixForHash));
      total += writeFully(ch, prefix);
      for (Item it : items) {
        try (PointerScope scope = produce == null ? null : new PointerScope()) {
          Tensor data = produce == null ? it.data() : produce.apply(it);
          long n = it.bytes();
          if (data.numel() * it.dtype().bytes() != n || !data.is_contiguous() || DType.of(data.scalar_type()) != it.dtype()) {
            throw new IllegalArgumentException("tensor " + it.name() + " is not a contiguous " + n + "-byte " + it.dtype() + " buffer");
          }
          BytePointer base = new BytePointer(data.data_ptr());
          for (long off = 0; off < n; off += CHUNK) {
            long len = Math.min(CHUNK, n - off);
            ByteBuffer chunk = new BytePointer(base).position(off).limit(off + len).asByteBuffer();
            ByteBuffer forHash = chunk.duplicate();
            lastHash = hasher.submit(() -> md.update(forHash));
            total += writeFully(ch, chunk);
          }
          if (produce != null) waitFor(lastHash, file); // hashed before the scope frees the tensor
        }
      }
      ch.force(true);
      waitFor(lastHash, file);
      return new Written(file, total, Sha256.hex(md.digest()));
    } finally {
      hasher.shutdownNow();
    }
  }

  static byte[] header(List<Item> items, Map<String, String> metadata) {
    ObjectNode root = JSON.createObjectNode();
    if (metadata != null && !metadata.isEmpty()) {
      ObjectNode meta = root.putObject("__metadata__");
      metadata.forEach(meta::put);
    }
    long offset = 0;
    for (Item it : items) {
      if (root.has(it.name())) throw new IllegalArgumentException("tensor name " + it.name() + " appears twice in one shard");
      ObjectNode t = root.putObject(it.name());
      t.put("dtype", it.dtype().safetensorsName());
      ArrayNode shape = t.putArray("shape");
      for (long d : it.shape()) shape.add(d);
      long end = offset + it.bytes();
      t.putArray("data_offsets").add(offset).add(end);
      offset = end;
    }
    byte[] json = root.toString().getBytes(StandardCharsets.UTF_8);
    int padded = (json.length + 7) / 8 * 8;
    byte[] out = new byte[padded];
    System.arraycopy(json, 0, out, 0, json.length);
    for (int i = json.length; i < padded; i++) out[i] = ' ';
    return out;
  }

  private static long writeFully(FileChannel ch, ByteBuffer b) throws IOException {
    long n = 0;
    while (b.hasRemaining()) n += ch.write(b);
    return n;
  }

  private static void waitFor(Future<?> f, Path file) throws IOException {
    try {
      f.get(10, TimeUnit.MINUTES);
    } catch (ExecutionException e) {
      throw new IOException("hashing " + file + " failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new IOException("hashing " + file + " took over 10 minutes; is the machine overloaded?", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while hashing " + file, e);
    }
  }
}
