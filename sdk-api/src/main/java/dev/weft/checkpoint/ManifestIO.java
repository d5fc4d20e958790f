package dev.weft.checkpoint;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.weft.util.BoundedFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/** Builds a {@link Manifest} from the ranks' reports, writes it, and reads it back with every field checked. */
public final class ManifestIO {
  /** Manifests larger than this are refused when reading. */
  public static final long MAX_MANIFEST_BYTES = 256L << 20;

  // Strict reading: a duplicate key (a second "step" that would win), a trailing value or a fractional
  // count is a manifest no Weft wrote, so it is refused rather than resolved one way.
  private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
      .enable(SerializationFeature.INDENT_OUTPUT)
      .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  private ManifestIO() {}

  public static ObjectMapper json() { return JSON; }

  /** The manifest of the shards the ranks reported; the same global tensor must have one dtype and shape everywhere. */
  static Manifest assemble(CheckpointMeta meta, List<ShardReport> reports) {
    Map<String, Manifest.FileRecord> files = new TreeMap<>();
    Map<String, String> dtypes = new TreeMap<>();
    Map<String, long[]> shapes = new TreeMap<>();
    Map<String, List<Manifest.Piece>> pieces = new TreeMap<>();
    for (ShardReport r : reports) {
      if (r.file() == null) continue;
      files.put(r.file(), new Manifest.FileRecord(r.bytes(), r.sha256()));
      for (ShardReport.Written w : r.pieces()) {
        String dt = dtypes.putIfAbsent(w.name(), w.dtype());
        long[] gs = shapes.putIfAbsent(w.name(), w.globalShape());
        if ((dt != null && !dt.equals(w.dtype())) || (gs != null && !Arrays.equals(gs, w.globalShape()))) {
          throw new CheckpointException("tensor " + w.name() + " is saved as " + dt + " " + Arrays.toString(gs) + " by one rank and as "
              + w.dtype() + " " + Arrays.toString(w.globalShape()) + " by rank " + r.rank() + "; every rank must agree on a tensor's dtype and global shape");
        }
        pieces.computeIfAbsent(w.name(), k -> new ArrayList<>())
            .add(new Manifest.Piece(r.file(), w.name(), w.offset(), w.shape(), w.flatStart(), w.flatLength()));
      }
    }
    Map<String, Manifest.GlobalTensor> tensors = new TreeMap<>();
    pieces.forEach((name, ps) -> {
      ps.sort(Comparator.comparing(Manifest.Piece::file));
      tensors.put(name, new Manifest.GlobalTensor(dtypes.get(name), shapes.get(name), List.copyOf(ps)));
    });
    return new Manifest(Manifest.FORMAT, Manifest.VERSION, meta.step(), meta.mesh(), meta.zeroStage(), meta.spec(),
        meta.state(), tensors, files);
  }

  /** The bytes of {@code m}'s manifest file, sealed ({@link ManifestSeal}) with the environment's key, if any. */
  public static byte[] sealedBytes(Manifest m) throws IOException { return sealedBytes(m, CheckpointKey.fromEnvironment()); }

  /** The bytes of {@code m}'s manifest file, sealed with {@code key} (its SHA-256 when there is none). */
  public static byte[] sealedBytes(Manifest m, CheckpointKey key) throws IOException {
    return ManifestSeal.seal(JSON.writeValueAsBytes(m), key);
  }

  /** Writes {@code m} sealed ({@link ManifestSeal}) with the environment's key, if any. */
  static void write(Manifest m, Path file) throws IOException {
    Files.write(file, sealedBytes(m));
    FileSync.fsyncFile(file);
  }

  /** Reads and checks {@code dir/manifest.json} with the environment's key, if any. */
  public static Manifest read(Path dir) { return read(dir, CheckpointKey.fromEnvironment()); }

  /**
   * Reads and checks {@code dir/manifest.json}: a regular file of at most {@link #MAX_MANIFEST_BYTES},
   * its seal matching ({@code key}'s HMAC when a key is given), every field consistent, and its step
   * the one its {@code step-NNNNNN} directory names.
   */
  public static Manifest read(Path dir, CheckpointKey key) {
    Path file = dir.resolve(Manifest.FILE_NAME);
    Manifest m;
    try {
      m = JSON.readValue(ManifestSeal.open(file, BoundedFiles.read(file, MAX_MANIFEST_BYTES), key), Manifest.class);
    } catch (NoSuchFileException e) {
      throw new CorruptCheckpointException(file, "is missing; " + dir + " is not a complete checkpoint");
    } catch (BoundedFiles.Refused e) {
      throw new CorruptCheckpointException(file, e.getMessage());
    } catch (JsonProcessingException e) {
      throw new CorruptCheckpointException(file, "is not a valid manifest: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new CorruptCheckpointException(file, "cannot be read: " + e.getMessage(), e);
    }
    check(file, m);
    Path name = dir.toAbsolutePath().normalize().getFileName();
    OptionalLong dirStep = name == null ? OptionalLong.empty() : CheckpointLayout.stepOf(name.toString());
    if (dirStep.isPresent() && dirStep.getAsLong() != m.step()) {
      throw new CorruptCheckpointException(file, "says step " + m.step() + " but lies in " + name + "; refused (altered or moved)");
    }
    return m;
  }

  private static void check(Path file, Manifest m) {
    try {
      checkFields(file, m);
    } catch (ArithmeticException e) {
      throw new CorruptCheckpointException(file, "has a tensor or piece whose size overflows (damaged)");
    }
  }

  private static void checkFields(Path file, Manifest m) {
    if (m == null || !Manifest.FORMAT.equals(m.format())) throw new CorruptCheckpointException(file, "format is not '" + Manifest.FORMAT + "'");
    if (m.version() != Manifest.VERSION) {
      throw new CorruptCheckpointException(file, "format version " + m.version() + " is not readable by this Weft (reads " + Manifest.VERSION
          + (m.version() > Manifest.VERSION ? "); upgrade Weft" : "; a sealed manifest always says " + Manifest.VERSION + ")"));
    }
    if (m.step() < 0 || m.tensors() == null || m.files() == null) throw new CorruptCheckpointException(file, "lacks step, tensors or files");
    CheckpointMeta.Mesh mesh = m.mesh();
    if (mesh == null || mesh.dp() < 1 || mesh.tp() < 1 || mesh.pp() < 1 || m.zeroStage() < 0 || m.zeroStage() > 3) {
      throw new CorruptCheckpointException(file, "lacks a mesh of positive sizes and a ZeRO stage 0..3");
    }
    if (m.state() == null) throw new CorruptCheckpointException(file, "lacks the training state map");
    m.files().forEach((name, rec) -> {
      if (!CheckpointLayout.isShardFileName(name) || rec == null || rec.bytes() < 0 || rec.sha256() == null || !rec.sha256().matches("[0-9a-f]{64}")) {
        throw new CorruptCheckpointException(file, "file entry '" + name + "' is not a shard name with a size and a SHA-256");
      }
    });
    m.tensors().forEach((name, t) -> {
      if (t == null || DType.fromSafetensors(t.dtype()) == null || t.shape() == null || t.pieces() == null) {
        throw new CorruptCheckpointException(file, "tensor '" + name + "' lacks a known dtype, a shape or pieces");
      }
      Math.multiplyExact(TensorSlice.product(t.shape()), (long) DType.fromSafetensors(t.dtype()).bytes()); // its byte size fits a long
      for (Manifest.Piece p : t.pieces()) {
        if (p == null || p.file() == null || !m.files().containsKey(p.file()) || p.key() == null) {
          throw new CorruptCheckpointException(file, "tensor '" + name + "' names a piece in a file the manifest does not list");
        }
        try {
          p.slice(t.shape());
        } catch (IllegalArgumentException | NullPointerException e) {
          throw new CorruptCheckpointException(file, "tensor '" + name + "' has a piece outside its shape: " + e.getMessage());
        }
      }
    });
  }
}
