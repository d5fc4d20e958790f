package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.cli.WeftMain;
import dev.weft.spec.SpecException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31's lies that passed with the SHA-256s recomputed (items 2, 3 and 4): each is refused, the
 * resolver falls back to the previous intact checkpoint, and {@code weft checkpoint inspect} flags it.
 */
class CheckpointTamperTest {
  @TempDir Path root;

  private static final String WEIGHT = "model/blocks.0.attn.q.weight";
  private static final String MOMENT = "optim/exp_avg_sq/blocks.0.attn.q.weight";

  private Checkpoint resolveLatest(Consumer<Checkpoint> check) { return CheckpointResolver.resolve(root, "latest", check); }

  private void assertFallsBackTo(long step) {
    Checkpoint c = resolveLatest(x -> {});
    assertThat(c.step()).isEqualTo(step);
    List<StateEntry> blanks = TestState.blanks(TestState.wholeLayout(), ScalarType.Float);
    c.load(blanks);
    TestState.assertHolds(blanks, step);
  }

  private static String refusal(Path dir) {
    try {
      Checkpoint.open(dir, CheckpointKey.NONE).verify();
    } catch (CorruptCheckpointException e) {
      return e.getMessage();
    }
    throw new AssertionError(dir + " was accepted");
  }

  private record Run(int code, String out) {}

  private static Run inspect(Path dir) {
    PrintStream old = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      int code = WeftMain.commandLine().execute("checkpoint", "inspect", dir.toString());
      return new Run(code, buf.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(old);
    }
  }

  private void assertInspectFlags(long step, String why) {
    Run r = inspect(root);
    assertThat(r.code()).as(r.out()).isEqualTo(1);
    assertThat(r.out()).contains(CheckpointLayout.stepDirName(step) + "  DAMAGED").contains(why);
  }

  @Test
  void item2_duplicateTensorNameInAShardIsRefusedWithItsChecksumRecomputed() throws Exception {
    Tamper.save(root, 5, 10);
    Path shard = Tamper.dir(root, 10).resolve(Tamper.SHARD);
    byte[] b = Files.readAllBytes(shard);
    String s = new String(b, StandardCharsets.ISO_8859_1);
    // rename the second tensor to the first's name, same length: a header naming one tensor twice
    String first = "\"model/blocks.0.attn.q.bias\"", second = "\"model/blocks.0.attn.q.weight\"";
    int at = s.indexOf(second);
    String dup = "\"model/blocks.0.attn.q.bias\"";
    byte[] out = (s.substring(0, at) + dup + " ".repeat(second.length() - dup.length()) + s.substring(at + second.length()))
        .getBytes(StandardCharsets.ISO_8859_1);
    assertThat(new String(out, StandardCharsets.ISO_8859_1)).contains(first);
    Files.write(shard, out);
    Tamper.rehashShard(root, 10);
    assertThat(refusal(Tamper.dir(root, 10))).contains("Duplicate field 'model/blocks.0.attn.q.bias'");
    assertFallsBackTo(5);
    assertInspectFlags(10, "Duplicate field");
  }

  @Test
  void item2_infinityInAnOptimizerMomentIsRefused() {
    Tamper.save(root, 5);
    Tamper.savePoisoned(root, 10, MOMENT, Float.POSITIVE_INFINITY);
    assertThat(refusal(Tamper.dir(root, 10))).contains("tensor '" + MOMENT + "' holds a non-finite value (NaN or ±Inf) at element 3");
    assertFallsBackTo(5);
    assertInspectFlags(10, "non-finite");
  }

  @Test
  void item2_nanWeightIsRefusedAtLoadAndResumeLatestFallsBack() {
    Tamper.save(root, 5);
    Tamper.savePoisoned(root, 10, WEIGHT, Float.NaN);
    Checkpoint direct = Checkpoint.open(Tamper.dir(root, 10));
    assertThatThrownBy(() -> direct.load(TestState.blanks(TestState.wholeLayout(), ScalarType.Float)))
        .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("'" + WEIGHT + "' holds a non-finite value");
    assertFallsBackTo(5);
    assertInspectFlags(10, "non-finite");
  }

  @Test
  void item2_aManifestWhoseStepDiffersFromItsDirectoryIsRefused() throws Exception {
    Tamper.save(root, 5, 15);
    Tamper.reseal(Tamper.manifest(root, 15), t -> t.put("step", 12));
    assertThat(refusal(Tamper.dir(root, 15))).contains("says step 12 but lies in step-000015");
    assertFallsBackTo(5);
    assertInspectFlags(15, "says step 12");
  }

  @Test
  void item2_aDuplicateStepKeyIsRefused() throws Exception {
    Tamper.save(root, 5, 15);
    Tamper.resealText(Tamper.manifest(root, 15), CheckpointKey.NONE, b -> b.replaceFirst("\"step\" : 15,", "\"step\" : 15,\n  \"step\" : 12,"));
    assertThat(refusal(Tamper.dir(root, 15))).contains("Duplicate field 'step'");
    assertFallsBackTo(5);
  }

  @Test
  void item2_deletingTheSealAndClaimingVersion1IsRefused() throws Exception {
    Tamper.save(root, 5, 10);
    Path m = Tamper.manifest(root, 10);
    String body = new String(Tamper.body(m, CheckpointKey.NONE), StandardCharsets.UTF_8);
    Files.writeString(m, body.replace("\"version\" : 2", "\"version\" : 1"));
    assertThat(refusal(Tamper.dir(root, 10))).contains("has no manifest_sha256 seal");
    Tamper.save(root, 11);
    Tamper.reseal(Tamper.manifest(root, 11), t -> t.put("version", 1)); // sealed, yet claiming the unsealed format
    assertThat(refusal(Tamper.dir(root, 11))).contains("format version 1 is not readable");
    Files.writeString(root.resolve("latest"), "step-000011\n");
    assertFallsBackTo(5);
  }

  @Test
  void item2_aFractionalCountIsRefused() throws Exception {
    Tamper.save(root, 5, 10);
    Tamper.resealText(Tamper.manifest(root, 10), CheckpointKey.NONE, b -> b.replaceFirst("\"step\" : 10,", "\"step\" : 10.0,"));
    assertThat(refusal(Tamper.dir(root, 10))).contains("is not a valid manifest");
    assertFallsBackTo(5);
  }

  @Test
  void item3_aManifestThatIsADeviceIsOneRefusalAndFallsBack() throws Exception {
    Tamper.save(root, 5, 10);
    Path m = Tamper.manifest(root, 10);
    Files.delete(m);
    Files.createSymbolicLink(m, Path.of("/dev/zero"));
    assertThat(refusal(Tamper.dir(root, 10))).contains("is not a regular file");
    assertFallsBackTo(5);
  }

  @Test
  void item3_fifosNeverBlockResolveOrInspect() throws Exception {
    Tamper.save(root, 5, 10, 15);
    Path m = Tamper.manifest(root, 15);
    Files.delete(m);
    mkfifo(m);
    Path shard = Tamper.dir(root, 10).resolve(Tamper.SHARD);
    Files.delete(shard);
    mkfifo(shard);
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
      assertFallsBackTo(5);
      assertThat(refusal(Tamper.dir(root, 10))).contains("is not a regular file");
      assertInspectFlags(15, "is not a regular file");
    });
  }

  @Test
  void item3_anOversizedManifestIsRefusedBeforeItIsRead() throws Exception {
    Tamper.save(root, 5, 10);
    try (var f = new java.io.RandomAccessFile(Tamper.manifest(root, 10).toFile(), "rw")) {
      f.setLength(ManifestIO.MAX_MANIFEST_BYTES + 1); // sparse: no disk used
    }
    assertThat(refusal(Tamper.dir(root, 10))).contains("over the " + ManifestIO.MAX_MANIFEST_BYTES + "-byte limit");
    assertFallsBackTo(5);
  }

  @Test
  void item3_aManifestNamingAFileOutsideItsDirectoryIsRefused() throws Exception {
    Tamper.save(root, 5, 10);
    Tamper.reseal(Tamper.manifest(root, 10), t -> {
      ObjectNode files = (ObjectNode) t.get("files");
      files.set("../../../../etc/passwd", files.remove(Tamper.SHARD));
    });
    assertThat(refusal(Tamper.dir(root, 10))).contains("'../../../../etc/passwd' is not a shard name");
    assertFallsBackTo(5);
  }

  @Test
  void item4_aGlobalShapeChangedInTheManifestFallsBackInOneLine() throws Exception {
    Tamper.save(root, 5, 10);
    // [8, 6] → [6, 8] with the piece following it: every file still agrees with the manifest
    Tamper.reseal(Tamper.manifest(root, 10), t -> {
      ObjectNode w = (ObjectNode) t.get("tensors").get(WEIGHT);
      w.putArray("shape").add(6).add(8);
      ((ObjectNode) w.get("pieces").get(0)).putArray("shape").add(6).add(8);
    });
    Checkpoint.open(Tamper.dir(root, 10)).verify(); // as inspect sees it: internally consistent
    List<StateEntry> wanted = TestState.blanks(TestState.wholeLayout(), ScalarType.Float);
    Checkpoint c = resolveLatest(cand -> cand.checkFits(wanted));
    assertThat(c.step()).isEqualTo(5);
    assertThatThrownBy(() -> Checkpoint.open(Tamper.dir(root, 10)).checkFits(wanted)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("tensor '" + WEIGHT + "' was saved with global shape [6, 8] but is wanted as [8, 6]")
        .hasMessageNotContaining("\n");
  }

  @Test
  void item4_allCheckpointsDamagedIsOneSpecLineNamingEach() throws Exception {
    Tamper.save(root, 5, 10);
    Files.writeString(Tamper.manifest(root, 10), "{}");
    Path shard5 = Tamper.dir(root, 5).resolve(Tamper.SHARD);
    Files.write(shard5, new byte[] {1, 2, 3});
    assertThatThrownBy(() -> resolveLatest(x -> {})).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("checkpoint.resume: latest: none of the 2 checkpoint(s) under " + root + " is intact: step-000010 (")
        .hasMessageContaining("step-000005 (" + shard5 + ": is 3 bytes").hasMessageNotContaining("\n");
  }

  private static void mkfifo(Path p) throws Exception {
    Process proc = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
    assertThat(proc.waitFor()).isZero();
  }
}
