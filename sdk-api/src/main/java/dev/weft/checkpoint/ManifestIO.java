package dev.weft.checkpoint;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Builds a {@link Manifest} from the ranks' reports, writes it, and reads it back with every field checked. */
public final class ManifestIO {
  /** Manifests larger than this are refused when reading. */
  public static final long MAX_MANIFEST_BYTES = 256L << 20;

  private static final ObjectMapper JSON = new ObjectMapper()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
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

  /** The bytes of {@code m}'s manifest file, sealed with its own SHA-256 ({@link ManifestSeal}). */
  public static byte[] sealedBytes(Manifest m) throws IOException {
    return ManifestSeal.seal(JSON.writeValueAsBytes(m));
  }

  /** Writes {@code m} sealed with its own SHA-256 ({@link ManifestSeal}). */
  static void write(Manifest m, Path file) throws IOException {
    Files.write(file, sealedBytes(m));
    FileSync.fsyncFile(file);
  }

  /** Reads and checks {@code dir/manifest.json}. */
  public static Manifest read(Path dir) {
    Path file = dir.resolve(Manifest.FILE_NAME);
    Manifest m;
    try {
      long size = Files.size(file);
      if (size > MAX_MANIFEST_BYTES) throw new CorruptCheckpointException(file, "is " + size + " bytes, over the " + MAX_MANIFEST_BYTES + "-byte limit");
      m = parse(file, Files.readAllBytes(file));
    } catch (NoSuchFileException e) {
      throw new CorruptCheckpointException(file, "is missing; " + dir + " is not a complete checkpoint");
    } catch (JsonProcessingException e) {
      throw new CorruptCheckpointException(file, "is not a valid manifest: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new CorruptCheckpointException(file, "cannot be read: " + e.getMessage(), e);
    }
    check(file, m);
    return m;
  }

  /** The manifest in {@code bytes}: sealed ones must match their seal; only version 1 (written before seals) may lack one. */
  private static Manifest parse(Path file, byte[] bytes) throws IOException {
    if (ManifestSeal.isSealed(bytes)) {
      byte[] body = ManifestSeal.unseal(bytes);
      if (body == null) throw new CorruptCheckpointException(file, "does not match its own " + ManifestSeal.FIELD + " (damaged)");
      return JSON.readValue(body, Manifest.class);
    }
    Manifest m = JSON.readValue(bytes, Manifest.class);
    if (m != null && m.version() >= 2) throw new CorruptCheckpointException(file, "lacks its " + ManifestSeal.FIELD + " (damaged)");
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
    if (m.version() < 1 || m.version() > Manifest.VERSION) {
      throw new CorruptCheckpointException(file, "format version " + m.version() + " is not readable by this Weft (reads 1.." + Manifest.VERSION + "); upgrade Weft");
    }
    if (m.step() < 0 || m.tensors() == null || m.files() == null) throw new CorruptCheckpointException(file, "lacks step, tensors or files");
    CheckpointMeta.Mesh mesh = m.mesh();
    if (mesh == null || mesh.dp() < 1 || mesh.tp() < 1 || mesh.pp() < 1 || m.zeroStage() < 0 || m.zeroStage() > 3) {
      throw new CorruptCheckpointException(file, "lacks a mesh of positive sizes and a ZeRO stage 0..3");
    }
    if (m.version() >= 2 && m.state() == null) throw new CorruptCheckpointException(file, "lacks the training state map");
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
