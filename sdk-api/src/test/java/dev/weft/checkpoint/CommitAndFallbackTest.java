package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Layout, keep-N, fallback past damaged checkpoints, async save, single rank. */
class CommitAndFallbackTest {
  @TempDir Path root;

  private static CheckpointMeta meta(long step) {
    return new CheckpointMeta(step, new CheckpointMeta.Mesh(1, 1, 1), 0, null, Map.of("step", step));
  }

  private static Checkpointer.Options opts(int keep, boolean async) { return new Checkpointer.Options(keep, async, Duration.ofSeconds(30)); }

  private void saveSteps(Path dir, int keep, boolean async, long... steps) {
    try (Checkpointer c = Checkpointer.local(dir, opts(keep, async))) {
      for (long s : steps) c.save(meta(s), TestState.entries(s, TestState.wholeLayout(), true, ScalarType.Float));
    }
  }

  private static List<String> names(Path dir) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void layoutAndKeepN() throws Exception {
    saveSteps(root, 2, false, 100, 200, 300, 400);
    assertThat(names(root)).containsExactly("latest", "step-000300", "step-000400");
    assertThat(Files.readString(root.resolve("latest")).lines().findFirst().orElse("")).isEqualTo("step-000400");
    assertThat(names(root.resolve("step-000400"))).containsExactly("manifest.json", "rank-00000.safetensors");
    Checkpoint c = CheckpointResolver.resolve(root, "latest");
    assertThat(c.step()).isEqualTo(400);
    assertThat(c.meta().state()).containsEntry("step", 400);
    List<StateEntry> blanks = TestState.blanks(TestState.wholeLayout(), ScalarType.Float);
    c.load(blanks);
    TestState.assertHolds(blanks, 400);
  }

  @Test
  void aCorruptedByteFallsBackToThePreviousCheckpointAndNamesTheFile() throws Exception {
    saveSteps(root, 3, false, 1, 2);
    Path shard = root.resolve("step-000002/rank-00000.safetensors");
    try (RandomAccessFile f = new RandomAccessFile(shard.toFile(), "rw")) {
      f.seek(f.length() - 3);
      int b = f.read();
      f.seek(f.length() - 3);
      f.write(b ^ 0x10);
    }
    assertThatThrownBy(() -> CheckpointResolver.resolve(root, root.resolve("step-000002").toString()))
        .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining(shard.toString()).hasMessageContaining("SHA-256");
    assertThatThrownBy(() -> Checkpoint.open(root.resolve("step-000002")).load(TestState.blanks(TestState.wholeLayout(), ScalarType.Float)))
        .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining(shard.toString());
    Checkpoint c = CheckpointResolver.resolve(root, "latest");
    assertThat(c.step()).isEqualTo(1);
  }

  @Test
  void missingShardAndBadManifestFallBack() throws Exception {
    saveSteps(root, 0, false, 1, 2, 3);
    Files.delete(root.resolve("step-000003/rank-00000.safetensors"));
    Files.writeString(root.resolve("step-000002/manifest.json"), "{\"format\": \"weft-checkpoint\", \"version\": 1, \"step\": ");
    assertThat(CheckpointResolver.latest(root).orElseThrow().step()).isEqualTo(1);
    assertThatThrownBy(() -> Checkpoint.open(root.resolve("step-000002"))).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("manifest.json");
  }

  @Test
  void checkpointsNewerThanLatestAreIgnoredAndStaleTempDirsRemoved() throws Exception {
    saveSteps(root, 0, false, 1, 2);
    Files.writeString(root.resolve("latest"), "step-000001\n"); // as if the crash came between rename and latest
    Files.createDirectories(root.resolve(".tmp-step-000001"));
    assertThat(CheckpointResolver.latest(root).orElseThrow().step()).isEqualTo(1);
    saveSteps(root, 0, false, 2); // saving step 2 again replaces it
    assertThat(names(root)).containsExactly("latest", "step-000001", "step-000002");
    assertThat(CheckpointResolver.latest(root).orElseThrow().step()).isEqualTo(2);
  }

  @Test
  void asyncWritesTheSameBytesAsSyncAndSnapshotsAtTheCall() throws Exception {
    Path a = root.resolve("async"), s = root.resolve("sync");
    saveSteps(s, 0, false, 5);
    try (Checkpointer c = Checkpointer.local(a, opts(0, true))) {
      List<StateEntry> entries = TestState.entries(5, TestState.wholeLayout(), true, ScalarType.Float);
      c.save(meta(5), entries);
      for (StateEntry e : entries) e.data().fill_(new Scalar(-1)); // training goes on at once
      assertThat(c.await()).contains(a.resolve("step-000005").toString());
    }
    for (String f : List.of("rank-00000.safetensors", "manifest.json")) {
      assertThat(Files.readAllBytes(a.resolve("step-000005").resolve(f))).as(f).isEqualTo(Files.readAllBytes(s.resolve("step-000005").resolve(f)));
    }
  }

  @Test
  void asyncSaveInsideAStepScopeOutlivesTheScope() throws Exception {
    try (Checkpointer c = Checkpointer.local(root, opts(0, true))) {
      try (org.bytedeco.javacpp.PointerScope step = new org.bytedeco.javacpp.PointerScope()) {
        c.save(meta(8), TestState.entries(8, TestState.wholeLayout(), true, ScalarType.Float)); // entries die with the scope
      }
      for (int i = 0; i < 20; i++) TestState.entries(99, TestState.wholeLayout(), true, ScalarType.Float); // reuse freed memory
      c.await();
    }
    List<StateEntry> blanks = TestState.blanks(TestState.wholeLayout(), ScalarType.Float);
    CheckpointResolver.resolve(root, "latest").load(blanks);
    TestState.assertHolds(blanks, 8);
  }

  @Test
  void aBackgroundFailureSurfacesOnTheNextCall() throws Exception {
    Path notADir = root.resolve("file");
    Files.writeString(notADir, "x");
    Checkpointer c = Checkpointer.local(notADir, opts(0, true));
    c.save(meta(1), TestState.entries(1, TestState.wholeLayout(), true, ScalarType.Float));
    assertThatThrownBy(() -> c.save(meta(2), TestState.entries(2, TestState.wholeLayout(), true, ScalarType.Float)))
        .isInstanceOf(CheckpointException.class).hasMessageContaining(notADir.toString());
    c.close();
  }

  @Test
  void mixedDtypesRoundTrip() {
    try (Checkpointer c = Checkpointer.local(root, opts(0, false))) {
      c.save(meta(7), TestState.entries(7, TestState.wholeLayout(), true, ScalarType.BFloat16));
    }
    Checkpoint c = CheckpointResolver.resolve(root, "latest");
    assertThat(c.manifest().tensors().values()).allSatisfy(t -> assertThat(t.dtype()).isEqualTo("BF16"));
    List<StateEntry> blanks = TestState.blanks(TestState.wholeLayout(), ScalarType.Float);
    c.load(blanks);
    List<StateEntry> expected = TestState.entries(7, TestState.wholeLayout(), true, ScalarType.BFloat16);
    for (int i = 0; i < blanks.size(); i++) {
      assertThat(dev.weft.util.Tensors.toFloats(blanks.get(i).data())).containsExactly(dev.weft.util.Tensors.toFloats(expected.get(i).data()));
    }
  }
}
