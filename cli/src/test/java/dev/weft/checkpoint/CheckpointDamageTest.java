package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.cli.WeftMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind of damage the hardening probes found: {@code latest} resolves to the newest checkpoint
 * that verifies, and {@code weft checkpoint inspect} flags the damaged one. Edits that keep the
 * manifest's seal valid (as a buggy writer or a careful attacker would) are resealed, so the field
 * checks behind the seal are exercised too.
 */
class CheckpointDamageTest {
  @TempDir Path root;

  private static final Consumer<Checkpoint> STATE_CHECK = c -> c.stateLong("step", 0);

  private void save(long... steps) {
    try (Checkpointer c = Checkpointer.local(root, new Checkpointer.Options(0, false, Duration.ofSeconds(30)))) {
      for (long s : steps) {
        c.save(new CheckpointMeta(s, new CheckpointMeta.Mesh(1, 1, 1), 0, null, Map.of("step", s)),
            TestState.entries(s, TestState.wholeLayout(), true, ScalarType.Float));
      }
    }
  }

  private Path manifest(long step) { return root.resolve(CheckpointLayout.stepDirName(step)).resolve(Manifest.FILE_NAME); }

  /** Rewrites checkpoint {@code step}'s manifest after {@code edit}, with a valid seal. */
  private void resealed(long step, Consumer<ObjectNode> edit) throws Exception {
    ObjectNode tree = (ObjectNode) ManifestIO.json().readTree(Files.readAllBytes(manifest(step)));
    tree.remove(ManifestSeal.FIELD);
    edit.accept(tree);
    Files.write(manifest(step), ManifestSeal.seal(ManifestIO.json().writeValueAsBytes(tree)));
  }

  private void assertFallsBackTo(long step) {
    Checkpoint c = CheckpointResolver.resolve(root, "latest", STATE_CHECK);
    assertThat(c.step()).isEqualTo(step);
    List<StateEntry> blanks = TestState.blanks(TestState.wholeLayout(), ScalarType.Float);
    c.load(blanks);
    TestState.assertHolds(blanks, step);
  }

  private record Run(int code, String out) {}

  private static Run inspect(Path dir) {
    PrintStream old = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      int code = WeftMain.commandLine().execute("checkpoint", "inspect", "--no-tensors", dir.toString());
      return new Run(code, buf.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(old);
    }
  }

  private void assertInspectFlags(long step) {
    Run r = inspect(root);
    assertThat(r.code()).as(r.out()).isEqualTo(1);
    assertThat(r.out()).contains(CheckpointLayout.stepDirName(step) + "  DAMAGED");
    Run one = inspect(root.resolve(CheckpointLayout.stepDirName(step)));
    assertThat(one.code()).as(one.out()).isEqualTo(1);
    assertThat(one.out()).contains("integrity: DAMAGED");
  }

  @Test
  void latestNamingADeletedStepFallsBack() throws Exception {
    save(5, 10);
    FileSync.deleteTree(root.resolve("step-000010"));
    assertThat(Files.readString(root.resolve("latest")).lines().findFirst().orElse("")).isEqualTo("step-000010");
    assertFallsBackTo(5);
  }

  @Test
  void overflowingPieceShapeFallsBack() throws Exception {
    save(5, 10);
    resealed(10, t -> {
      ObjectNode first = (ObjectNode) t.get("tensors").elements().next();
      first.putArray("shape").add(Long.MAX_VALUE / 2).add(Long.MAX_VALUE / 2);
    });
    assertFallsBackTo(5);
    assertInspectFlags(10);
  }

  @Test
  void missingMeshOrStateFallsBack() throws Exception {
    save(5, 10, 15);
    resealed(15, t -> t.remove("mesh"));
    resealed(10, t -> t.remove("state"));
    assertFallsBackTo(5);
    assertInspectFlags(15);
    assertInspectFlags(10);
  }

  @Test
  void wrongStateTypeFallsBack() throws Exception {
    save(5, 10);
    resealed(10, t -> ((ObjectNode) t.get("state")).put("step", "ten"));
    assertFallsBackTo(5);
    assertThatThrownBy(() -> CheckpointResolver.resolve(root, root.resolve("step-000010").toString(), STATE_CHECK))
        .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("state.step is ten, not a whole number");
  }

  @Test
  void unsealedEditIsRefused() throws Exception {
    save(5, 10);
    Path m = manifest(10);
    Files.writeString(m, Files.readString(m).replace("q.bias\"", "q.biaq\"").replace("\"step\" : 10", "\"step\" : 11"));
    assertFallsBackTo(5);
    assertInspectFlags(10);
  }

  @Test
  void headerDtypeChangedAndResealedIsCaughtByTheHeaderComparison() throws Exception {
    save(5, 10);
    Path shard = root.resolve("step-000010/rank-00000.safetensors");
    byte[] b = Files.readAllBytes(shard);
    String s = new String(b, StandardCharsets.ISO_8859_1);
    int at = s.indexOf("\"F32\"");
    assertThat(at).isPositive();
    b[at + 1] = 'I'; // F32 -> I32: same width, so the file still parses
    Files.write(shard, b);
    String sha = Sha256.ofFile(shard);
    resealed(10, t -> ((ObjectNode) t.get("files").get("rank-00000.safetensors")).put("sha256", sha));
    assertFallsBackTo(5);
    assertThatThrownBy(() -> Checkpoint.open(root.resolve("step-000010")).verify())
        .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("is I32").hasMessageContaining("manifest says F32");
    assertInspectFlags(10);
  }

  @Test
  void thirtyRandomSingleBitFlipsOfTheManifestAllFallBack() throws Exception {
    save(5, 10);
    Path m = manifest(10);
    byte[] good = Files.readAllBytes(m);
    Random rnd = new Random(19);
    for (int i = 0; i < 30; i++) {
      int bit = rnd.nextInt(good.length * 8);
      byte[] bad = good.clone();
      bad[bit / 8] ^= (byte) (1 << (bit % 8));
      Files.write(m, bad);
      assertThatThrownBy(() -> Checkpoint.open(root.resolve("step-000010")).verify()).as("bit %d", bit)
          .isInstanceOf(CorruptCheckpointException.class);
      assertThat(CheckpointResolver.resolve(root, "latest", STATE_CHECK).step()).as("bit %d", bit).isEqualTo(5);
      if (i % 10 == 0) assertInspectFlags(10);
    }
    Files.write(m, good);
    assertFallsBackTo(10);
  }

  @Test
  void pruningKeepsTheResumedFromCheckpointAndStaleNewerOnes() throws Exception {
    save(10, 15, 20);
    try (Checkpointer c = Checkpointer.local(root, new Checkpointer.Options(3, false, Duration.ofSeconds(30)))) {
      c.resumedFrom(10);
      for (long s = 11; s <= 14; s++) {
        c.save(new CheckpointMeta(s, new CheckpointMeta.Mesh(1, 1, 1), 0, null, Map.of("step", s)),
            TestState.entries(s, TestState.wholeLayout(), true, ScalarType.Float));
      }
    }
    assertThat(names()).containsExactly("latest", "step-000010", "step-000012", "step-000013", "step-000014",
        "step-000015", "step-000020");
  }

  @Test
  void leftoverTempDirectoriesAreRemovedWhenASaveStarts() throws Exception {
    save(1);
    Path partial = root.resolve(".tmp-step-000007");
    Files.createDirectories(partial);
    Files.write(partial.resolve("rank-00000.safetensors"), new byte[4096]); // what a full disk leaves
    Files.createDirectories(root.resolve(".old-step-000001"));
    save(2);
    assertThat(names()).containsExactly("latest", "step-000001", "step-000002");
  }

  private List<String> names() throws Exception {
    try (Stream<Path> s = Files.list(root)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
