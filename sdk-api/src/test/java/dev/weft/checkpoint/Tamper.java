package dev.weft.checkpoint;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * What a careful attacker (or a buggy tool) does to a checkpoint: edits a manifest or shard and
 * recomputes the SHA-256s and the unkeyed seal, so only checks behind the seal can catch it.
 */
final class Tamper {
  static final String SHARD = "rank-00000.safetensors";

  private Tamper() {}

  /** Saves TestState at {@code steps} under {@code root}, one rank, whole tensors. */
  static void save(Path root, long... steps) {
    try (Checkpointer c = Checkpointer.local(root, new Checkpointer.Options(0, false, Duration.ofSeconds(30)))) {
      for (long s : steps) c.save(meta(s), TestState.entries(s, TestState.wholeLayout(), true, ScalarType.Float));
    }
  }

  /** Saves step {@code step} with element 3 of tensor {@code name} set to {@code value} (NaN, ±Inf). */
  static void savePoisoned(Path root, long step, String name, float value) {
    List<StateEntry> entries = TestState.entries(step, TestState.wholeLayout(), true, ScalarType.Float);
    for (StateEntry e : entries) if (e.name().equals(name)) e.data().view(-1).narrow(0, 3, 1).fill_(new Scalar(value));
    try (Checkpointer c = Checkpointer.local(root, new Checkpointer.Options(0, false, Duration.ofSeconds(30)))) {
      c.save(meta(step), entries);
    }
  }

  static CheckpointMeta meta(long step) { return new CheckpointMeta(step, new CheckpointMeta.Mesh(1, 1, 1), 0, null, Map.of("step", step)); }

  static Path dir(Path root, long step) { return root.resolve(CheckpointLayout.stepDirName(step)); }

  static Path manifest(Path root, long step) { return dir(root, step).resolve(Manifest.FILE_NAME); }

  /** The manifest's JSON without its seal, as written. */
  static byte[] body(Path manifest, CheckpointKey key) throws IOException {
    return ManifestSeal.open(manifest, Files.readAllBytes(manifest), key);
  }

  /** Rewrites the manifest's body text through {@code edit}, sealed again with {@code key}. */
  static void resealText(Path manifest, CheckpointKey key, UnaryOperator<String> edit) throws IOException {
    String body = new String(body(manifest, anyKey(manifest, key)), StandardCharsets.UTF_8);
    Files.write(manifest, ManifestSeal.seal(edit.apply(body).getBytes(StandardCharsets.UTF_8), key));
  }

  /** Rewrites the manifest after {@code edit} of its tree, sealed without a key. */
  static void reseal(Path manifest, Consumer<ObjectNode> edit) throws IOException {
    ObjectNode tree = (ObjectNode) ManifestIO.json().readTree(body(manifest, CheckpointKey.NONE));
    edit.accept(tree);
    Files.write(manifest, ManifestSeal.seal(ManifestIO.json().writeValueAsBytes(tree)));
  }

  /** Seals checkpoint {@code step}'s manifest with {@code key} instead of its SHA-256 (as a keyed writer would have). */
  static void sealWithKey(Path root, long step, CheckpointKey key) throws IOException {
    Path m = manifest(root, step);
    Files.write(m, ManifestSeal.seal(body(m, CheckpointKey.NONE), key));
  }

  /** Records the shard's current size and SHA-256 in the manifest, resealed without a key. */
  static void rehashShard(Path root, long step) throws IOException {
    Path shard = dir(root, step).resolve(SHARD);
    String sha = Sha256.ofFile(shard);
    long size = Files.size(shard);
    reseal(manifest(root, step), t -> ((ObjectNode) t.get("files").get(SHARD)).put("sha256", sha).put("bytes", size));
  }

  /** Whichever key opens the manifest now: {@code key} when it is keyed, else none. */
  private static CheckpointKey anyKey(Path manifest, CheckpointKey key) throws IOException {
    String head = new String(Files.readAllBytes(manifest), 0, 40, StandardCharsets.ISO_8859_1);
    return head.contains(ManifestSeal.KEYED_FIELD) ? key : CheckpointKey.NONE;
  }
}
