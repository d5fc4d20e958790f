package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.comm.Rendezvous;
import dev.weft.comm.RunRelease;
import dev.weft.launch.ThreadedRun;
import dev.weft.util.Tensors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Save with one layout as rank threads (real rendezvous store), load with another. */
class ReshardingRoundTripTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final double SALT = 3.0;

  @TempDir Path root;

  interface Layout { Function<String, TensorSlice> of(int rank, int world); }

  /** Every rank of {@code world} saves step {@code step} with its slices from {@code layout}; {@code writes} picks the writers. */
  private void saveAsThreads(int world, long step, Layout layout, java.util.function.IntPredicate writes, boolean async) {
    ThreadedRun.onRanks(world, TIMEOUT, id -> {
      Rendezvous r = Rendezvous.connect(id.masterAddr(), id.masterPort(), id.rank(), id.rank() == 0, TIMEOUT);
      try (Checkpointer c = Checkpointer.create(root, id.rank(), world, CommitStore.of(r), new Checkpointer.Options(3, async, TIMEOUT))) {
        c.save(meta(step, world), TestState.entries(SALT, layout.of(id.rank(), world), writes.test(id.rank()), ScalarType.Float));
      } finally {
        RunRelease.release(r, id.rank(), world, List.of(), TIMEOUT);
      }
      return null;
    });
  }

  private static CheckpointMeta meta(long step, int world) {
    return new CheckpointMeta(step, new CheckpointMeta.Mesh(world, 1, 1), 0, null, Map.of("samples", 1234, "seed", 7));
  }

  private void loadAndCheck(int world, Layout layout, ScalarType dtype) {
    Checkpoint c = CheckpointResolver.resolve(root, "latest");
    for (int r = 0; r < world; r++) {
      List<StateEntry> blanks = TestState.blanks(layout.of(r, world), dtype);
      c.load(blanks);
      TestState.assertHolds(blanks, SALT);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void tensorParallelSaveLoadsAsZeroRanges(int tp) {
    saveAsThreads(tp, 10, (r, w) -> TestState.tpLayout(r, w), r -> true, false);
    loadAndCheck(3, TestState::zeroLayout, ScalarType.Float);
    loadAndCheck(1, (r, w) -> TestState.wholeLayout(), ScalarType.Float);
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void zeroSaveLoadsAsTensorParallel(int world) {
    saveAsThreads(world, 20, TestState::zeroLayout, r -> true, true);
    loadAndCheck(2, (r, w) -> TestState.tpLayout(r, w), ScalarType.Float);
    loadAndCheck(4, TestState::zeroLayout, ScalarType.Float);
  }

  @Test
  void dataParallelReplicasSaveOnceAndLoadOnOneRank() {
    saveAsThreads(2, 30, (r, w) -> TestState.wholeLayout(), r -> r == 0, false);
    Checkpoint c = CheckpointResolver.resolve(root, "latest");
    assertThat(c.manifest().files()).containsOnlyKeys("rank-00000.safetensors");
    assertThat(c.meta().state()).containsEntry("samples", 1234).containsEntry("seed", 7);
    assertThat(c.meta().mesh()).isEqualTo(new CheckpointMeta.Mesh(2, 1, 1));
    loadAndCheck(1, (r, w) -> TestState.wholeLayout(), ScalarType.Float);
  }

  @Test
  void tpTimesDpSaveLoadsIntoBf16() {
    // world 4 = dp 2 × tp 2; only dp rank 0 (ranks 0 and 1) writes
    saveAsThreads(4, 40, (r, w) -> TestState.tpLayout(r % 2, 2), r -> r / 2 == 0, true);
    loadAndCheck(1, (r, w) -> TestState.wholeLayout(), ScalarType.BFloat16);
    loadAndCheck(2, TestState::zeroLayout, ScalarType.Half);
  }

  @Test
  void shardsParseWithAnIndependentReader() throws Exception {
    saveAsThreads(2, 50, (r, w) -> TestState.tpLayout(r, w), r -> true, false);
    Path dir = root.resolve("step-000050");
    Map<String, long[]> shapes = TestState.shapes();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".safetensors")).toList()) {
        int rank = Integer.parseInt(f.getFileName().toString().substring(5, 10));
        Map<String, IndependentSafetensorsReader.Tensor> got = IndependentSafetensorsReader.readF32(f);
        assertThat(got).containsOnlyKeys(shapes.keySet());
        got.forEach((name, t) -> {
          TensorSlice s = TestState.tpLayout(rank, 2).apply(name);
          assertThat(t.shape()).containsExactly(s.localShape());
          assertThat(t.values()).containsExactly(Tensors.toFloats(TestState.cut(TestState.global(name, shapes.get(name), SALT), s, ScalarType.Float)));
        });
      }
    }
  }
}
