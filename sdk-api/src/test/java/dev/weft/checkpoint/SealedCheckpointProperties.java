package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * Damaged and forged manifests. With a {@link CheckpointKey}, any single changed byte of the manifest
 * or of a shard is refused, whether the attacker recomputes the SHA-256s and the unkeyed seal or not.
 * Without a key, a JSON key given twice anywhere in a (validly sealed) manifest is refused.
 */
class SealedCheckpointProperties {
  private static final CheckpointKey KEY = CheckpointKey.of("h31b-test-key-0123456789abcdef");
  private static Path base;
  private static Path keyed;
  private static Path plain;

  @BeforeContainer
  static void setUp() throws IOException {
    base = Files.createTempDirectory("weft-sealed");
    keyed = base.resolve("keyed");
    plain = base.resolve("plain");
    Tamper.save(keyed, 10);
    Tamper.sealWithKey(keyed, 10, KEY);
    Tamper.save(plain, 10);
  }

  @AfterContainer
  static void tearDown() throws IOException { FileSync.deleteTree(base); }

  @Example
  void theKeyedCheckpointLoadsWithItsKeyOnly() {
    Checkpoint c = Checkpoint.open(Tamper.dir(keyed, 10), KEY);
    c.verify();
    List<StateEntry> blanks = TestState.blanks(TestState.wholeLayout(), ScalarType.Float);
    c.load(blanks);
    TestState.assertHolds(blanks, 10);
    assertThatThrownBy(() -> Checkpoint.open(Tamper.dir(keyed, 10), CheckpointKey.NONE))
        .hasMessageContaining("is sealed with a checkpoint key").hasMessageContaining(CheckpointKey.ENV);
    assertThatThrownBy(() -> Checkpoint.open(Tamper.dir(keyed, 10), CheckpointKey.of("another-key-0123456789")))
        .hasMessageContaining("sealed with another key");
    assertThatThrownBy(() -> Checkpoint.open(Tamper.dir(plain, 10), KEY)).hasMessageContaining("carries only an unkeyed manifest_sha256");
    assertThat(KEY.toString()).doesNotContain("h31b-test-key");
    assertThatThrownBy(() -> CheckpointKey.of("short")).hasMessageContaining("at least 16").hasMessageNotContaining("short");
  }

  /**
   * One byte of the manifest ({@code inShard} false) or the shard changed to any other value; with
   * {@code forge} the attacker then records the shard's new size and SHA-256 in the manifest and seals
   * it the only way they can, without the key.
   */
  @Property(tries = 120)
  void withAKeyAnySingleByteChangeIsRefused(@ForAll boolean inShard, @ForAll @IntRange(min = 0, max = 1 << 20) int pos,
                                            @ForAll @IntRange(min = 1, max = 255) int xor, @ForAll boolean forge) throws IOException {
    Path root = copyOfKeyed();
    Path file = inShard ? Tamper.dir(root, 10).resolve(Tamper.SHARD) : Tamper.manifest(root, 10);
    byte[] b = Files.readAllBytes(file);
    b[pos % b.length] ^= (byte) xor;
    Files.write(file, b);
    if (forge) forgeUnkeyed(root, inShard);
    assertThatThrownBy(() -> Checkpoint.open(Tamper.dir(root, 10), KEY).verify()).isInstanceOf(CorruptCheckpointException.class);
    FileSync.deleteTree(root);
  }

  /** A member of any object of the manifest (top level, a tensor, a piece, the spec, the state) given twice, resealed. */
  @Property(tries = 80)
  void withoutAKeyADuplicatedJsonKeyAnywhereIsRefused(@ForAll @IntRange(min = 0, max = 10_000) int which,
                                                      @ForAll @IntRange(min = 0, max = 100) int member, @ForAll boolean sameValue)
      throws IOException {
    Path root = copyOf(plain);
    Path m = Tamper.manifest(root, 10);
    JsonNode tree = ManifestIO.json().readTree(Tamper.body(m, CheckpointKey.NONE));
    int target = Math.floorMod(which, JsonDup.objects(tree));
    Files.write(m, ManifestSeal.seal(JsonDup.write(tree, target, member, sameValue ? null : IntNode.valueOf(12))));
    assertThatThrownBy(() -> Checkpoint.open(Tamper.dir(root, 10), CheckpointKey.NONE)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("Duplicate field");
    FileSync.deleteTree(root);
  }

  private static final Pattern SEAL = Pattern.compile("\\A\\{\n  \"[a-z0-9_]+\" : \"[0-9a-f]{64}\",");

  /** Records the shard's size and SHA-256 (when it changed) and reseals the manifest with its plain SHA-256. */
  private static void forgeUnkeyed(Path root, boolean inShard) throws IOException {
    Path m = Tamper.manifest(root, 10);
    String text = new String(Files.readAllBytes(m), StandardCharsets.ISO_8859_1);
    Matcher seal = SEAL.matcher(text);
    if (!seal.find()) return; // the change broke the seal line itself: nothing to forge from
    byte[] body = ("{" + text.substring(seal.end())).getBytes(StandardCharsets.ISO_8859_1);
    if (inShard) {
      try {
        ObjectNode tree = (ObjectNode) ManifestIO.json().readTree(body);
        Path shard = Tamper.dir(root, 10).resolve(Tamper.SHARD);
        ((ObjectNode) tree.get("files").get(Tamper.SHARD)).put("sha256", Sha256.ofFile(shard)).put("bytes", Files.size(shard));
        body = ManifestIO.json().writeValueAsBytes(tree);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    Files.write(m, ManifestSeal.seal(body));
  }

  private static Path copyOfKeyed() throws IOException { return copyOf(keyed); }

  private static Path copyOf(Path root) throws IOException {
    Path to = Files.createTempDirectory(base, "case");
    Path from = Tamper.dir(root, 10), dir = Files.createDirectories(Tamper.dir(to, 10));
    try (var s = Files.list(from)) {
      for (Path p : s.toList()) Files.copy(p, dir.resolve(p.getFileName()));
    }
    return to;
  }
}
