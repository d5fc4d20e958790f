package dev.weft.checkpoint;

import dev.weft.util.BoundedFiles;
import dev.weft.util.Tensors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;

/**
 * One committed checkpoint directory (the one holding {@code manifest.json}), opened for reading.
 * {@link #load} fills any layout's tensors from the saved pieces that intersect them (resharding),
 * after checking the SHA-256 of each file it reads; {@link #verify} checks every file.
 */
public final class Checkpoint {
  private final Path dir;
  private final Manifest manifest;
  private final Set<String> verified = new HashSet<>();

  private Checkpoint(Path dir, Manifest manifest) {
    this.dir = dir;
    this.manifest = manifest;
  }

  /**
   * Opens {@code dir} and checks its manifest; throws {@link CorruptCheckpointException} naming the file otherwise.
   * {@code dir} may also be a checkpoint root (holding {@code step-NNNNNN} directories) or a run directory (holding
   * {@code checkpoints/}), as the CLI takes them: its newest complete checkpoint is opened.
   */
  public static Checkpoint open(Path dir) {
    Path root = rootOf(dir);
    if (root == null) return open(dir, CheckpointKey.fromEnvironment());
    return CheckpointResolver.latest(root).orElseThrow(() -> new CorruptCheckpointException(dir,
        "holds no complete checkpoint (no step-NNNNNN directory with a manifest.json that verifies)"));
  }

  /**
   * As {@link #open(Path)}, but a root's or run directory's newest checkpoint is opened by its manifest alone (seal
   * checked, shards not read): for what the manifest records (the base a tokenizer is found through), where the load
   * that follows verifies the shards once.
   */
  public static Checkpoint openRecord(Path dir) {
    Path root = rootOf(dir);
    if (root == null) return open(dir, CheckpointKey.fromEnvironment());
    LocalCheckpointStorage storage = new LocalCheckpointStorage(root);
    for (long step : CheckpointResolver.candidates(storage)) {
      try {
        return open(storage.fetch(step), CheckpointKey.fromEnvironment());
      } catch (CheckpointException e) {
        // an older one may hold a sound manifest
      }
    }
    throw new CorruptCheckpointException(dir, "holds no checkpoint with a sound manifest.json");
  }

  /**
   * The checkpoint with the lowest recorded eval loss ({@code checkpoint.saveBest}) under {@code dir}: a run directory
   * (holding {@code checkpoints/}) or a checkpoint root; refused in one line when there is none.
   */
  public static Checkpoint best(Path dir) {
    Path root = rootOf(dir);
    if (root == null) {
      throw new dev.weft.error.BadInputException("--best: " + dir + " is not a run directory or a checkpoint root;"
          + " pass the run's directory (holding checkpoints/) or its checkpoint root");
    }
    return best(new LocalCheckpointStorage(root), dir.toString());
  }

  /** As {@link #best(Path)} for the checkpoints of {@code storage}, named {@code shown} in the refusal. */
  public static Checkpoint best(CheckpointStorage storage, String shown) {
    return CheckpointResolver.best(storage).orElseThrow(() -> new dev.weft.error.BadInputException("--best: no checkpoint under "
        + shown + " records an eval loss; train with train.evalEvery and checkpoint.saveBest: true"));
  }

  /** The checkpoint root {@code dir} names when it is not one checkpoint: itself or its {@code checkpoints/}; else null. */
  private static Path rootOf(Path dir) {
    if (!Files.isDirectory(dir) || Files.exists(dir.resolve(Manifest.FILE_NAME))) return null;
    if (Files.isDirectory(dir.resolve("checkpoints"))) return dir.resolve("checkpoints");
    try (java.util.stream.Stream<Path> children = Files.list(dir)) {
      return children.anyMatch(c -> Files.isDirectory(c) && c.getFileName().toString().matches("step-\\d+")) ? dir : null;
    } catch (java.io.IOException e) {
      return null; // opened as one checkpoint, which names the problem
    }
  }

  /** Opens {@code dir}, its manifest's seal checked with {@code key} ({@link CheckpointKey#NONE}: the unkeyed SHA-256). */
  public static Checkpoint open(Path dir, CheckpointKey key) {
    if (!Files.isDirectory(dir)) throw new CorruptCheckpointException(dir, "is not a checkpoint directory (expected one holding manifest.json)");
    return new Checkpoint(dir, ManifestIO.read(dir, key));
  }

  public Path dir() { return dir; }
  public Manifest manifest() { return manifest; }
  public CheckpointMeta meta() { return manifest.meta(); }
  public long step() { return manifest.step(); }

  /**
   * A whole number from the training state map; {@code fallback} when absent. A value of another
   * type is damage (the resolver falls back past it), named with the manifest file.
   */
  public long stateLong(String key, long fallback) {
    Object v = manifest.state() == null ? null : manifest.state().get(key);
    if (v == null) return fallback;
    if (v instanceof Integer || v instanceof Long) return ((Number) v).longValue();
    throw badState(key, v, "a whole number");
  }

  /** A finite number from the training state map; {@code fallback} when absent. */
  public double stateDouble(String key, double fallback) {
    Object v = manifest.state() == null ? null : manifest.state().get(key);
    if (v == null) return fallback;
    if (v instanceof Number n && Double.isFinite(n.doubleValue())) return n.doubleValue();
    throw badState(key, v, "a finite number");
  }

  private CorruptCheckpointException badState(String key, Object v, String wanted) {
    String shown = String.valueOf(v);
    return new CorruptCheckpointException(dir.resolve(Manifest.FILE_NAME), "state." + key + " is "
        + (shown.length() > 40 ? shown.substring(0, 40) + "..." : shown) + ", not " + wanted);
  }

  /**
   * Checks size, SHA-256 and safetensors header of every shard file, that each header holds what the
   * manifest says, and that no floating-point value is NaN or infinite.
   */
  public void verify() {
    for (String f : manifest.files().keySet()) verifyFile(f);
  }

  private synchronized void verifyFile(String name) {
    if (verified.contains(name)) return;
    Path file = dir.resolve(name); // a shard name (ManifestIO checks the pattern), so it stays inside dir
    Manifest.FileRecord rec = manifest.files().get(name);
    try {
      long size = BoundedFiles.requireRegular(file);
      if (size != rec.bytes()) throw new CorruptCheckpointException(file, "is " + size + " bytes, the manifest says " + rec.bytes());
      SafetensorsFile f;
      try {
        f = SafetensorsFile.open(file);
      } catch (CorruptCheckpointException e) {
        checkSha(file, Sha256.ofFile(file), rec); // a damaged header is named as damage to the file first
        throw e;
      }
      ShardScan.Result scan = ShardScan.of(f);
      checkSha(file, scan.sha256(), rec);
      matchHeader(name, f);
      if (scan.tensor() != null) {
        throw new CorruptCheckpointException(file, "tensor '" + scan.tensor() + "' holds a non-finite value (NaN or ±Inf) at element "
            + scan.element() + "; a checkpoint of a diverged or altered run is refused");
      }
    } catch (NoSuchFileException e) {
      throw new CorruptCheckpointException(file, "is missing");
    } catch (BoundedFiles.Refused e) {
      throw new CorruptCheckpointException(file, e.getMessage());
    } catch (IOException e) {
      throw new CorruptCheckpointException(file, "cannot be read: " + e.getMessage(), e);
    }
    verified.add(name);
  }

  private static void checkSha(Path file, String sha, Manifest.FileRecord rec) {
    if (!sha.equals(rec.sha256())) {
      throw new CorruptCheckpointException(file, "SHA-256 " + sha + " differs from the manifest's " + rec.sha256() + " (damaged)");
    }
  }

  /** The header of shard {@code name} holds exactly the pieces the manifest places in it, with their dtypes and element counts. */
  private void matchHeader(String name, SafetensorsFile f) {
    Map<String, SafetensorsFile.Entry> left = new HashMap<>(f.entries());
    manifest.tensors().forEach((tensor, t) -> {
      for (Manifest.Piece p : t.pieces()) {
        if (!p.file().equals(name)) continue;
        SafetensorsFile.Entry e = left.remove(p.key());
        if (e == null) throw new CorruptCheckpointException(f.file(), "has no tensor '" + p.key() + "', which the manifest places there");
        if (e.dtype() != DType.fromSafetensors(t.dtype()) || e.numel() != p.flatLength()) {
          throw new CorruptCheckpointException(f.file(), "tensor '" + p.key() + "' is " + e.dtype().safetensorsName() + " × " + e.numel()
              + " but the manifest says " + t.dtype() + " × " + p.flatLength());
        }
      }
    });
    if (!left.isEmpty()) {
      throw new CorruptCheckpointException(f.file(), "holds tensor(s) the manifest does not list, e.g. '" + left.keySet().iterator().next() + "'");
    }
  }

  /**
   * Refuses as damage, before anything is read, a checkpoint whose tensor names or global shapes do not
   * fit {@code wanted} (a manifest edited behind an intact seal): the resolver then falls back to an
   * older checkpoint. A model that really changed is refused earlier, by the caller's own comparison.
   */
  public void checkFits(List<StateEntry> wanted) {
    try {
      LoadPlan.plan(manifest, wants(wanted), "the manifest");
    } catch (CorruptCheckpointException e) {
      throw e;
    } catch (CheckpointException e) {
      throw new CorruptCheckpointException(dir.resolve(Manifest.FILE_NAME), e.getMessage());
    }
  }

  private static List<LoadPlan.Want> wants(List<StateEntry> wanted) {
    List<LoadPlan.Want> wants = new ArrayList<>();
    for (StateEntry e : wanted) wants.add(new LoadPlan.Want(e.name(), e.slice()));
    return wants;
  }

  /**
   * Fills each wanted entry's tensor with its slice of the saved global tensor, whatever layout
   * saved it; converts dtypes when the wanted tensor's differs (e.g. saved F32, wanted BF16).
   */
  public void load(List<StateEntry> wanted) {
    List<LoadPlan.Step> steps = LoadPlan.plan(manifest, wants(wanted), dir.toString());
    for (LoadPlan.Step s : steps) verifyFile(s.piece().file());
    Map<String, SafetensorsFile> files = new HashMap<>();
    try (PointerScope scope = new PointerScope(); NoGradGuard ng = new NoGradGuard()) {
      Tensor[] dst = new Tensor[wanted.size()];
      for (LoadPlan.Step s : steps) {
        StateEntry want = wanted.get(s.wanted());
        if (dst[s.wanted()] == null) dst[s.wanted()] = destination(want);
        SafetensorsFile f = files.computeIfAbsent(s.piece().file(), n -> SafetensorsFile.open(dir.resolve(n)));
        copy(f, s, dst[s.wanted()], want.dtype());
      }
      for (int i = 0; i < dst.length; i++) {
        Tensor w = wanted.get(i).data();
        if (dst[i] != null && dst[i] != w) w.copy_(dst[i].view(w.sizes()));
      }
    }
  }

  /** The wanted tensor itself when it is contiguous CPU memory, else a contiguous host buffer to copy from at the end. */
  private static Tensor destination(StateEntry want) {
    Tensor w = want.data();
    if (w.is_cpu() && w.is_contiguous()) return w;
    return Tensors.empty(want.dtype().scalarType(), w.numel());
  }

  private void copy(SafetensorsFile f, LoadPlan.Step s, Tensor dst, DType wantedType) {
    SafetensorsFile.Entry e = f.entry(s.piece().key());
    if (e.dtype() != s.savedDtype() || e.numel() != s.piece().flatLength()) {
      throw new CorruptCheckpointException(f.file(), "tensor '" + e.name() + "' is " + e.dtype() + " × " + e.numel()
          + " but the manifest says " + s.savedDtype() + " × " + s.piece().flatLength());
    }
    long first = s.srcFirst(), count = s.srcEnd() - first;
    Tensor src = Tensors.empty(e.dtype().scalarType(), count);
    f.read(e, first, count, src.data_ptr());
    if (e.dtype() != wantedType) src = src.to(wantedType.scalarType());
    long w = wantedType.bytes();
    Pointer from = src.data_ptr(), to = dst.data_ptr();
    for (CopyRun r : s.runs()) {
      Pointer.memcpy(new BytePointer(to).position(r.dst() * w), new BytePointer(from).position((r.src() - first) * w), r.length() * w);
    }
  }
}
