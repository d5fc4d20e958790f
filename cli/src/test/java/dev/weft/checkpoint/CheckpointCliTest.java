package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.cli.WeftMain;
import dev.weft.util.Tensors;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code weft checkpoint inspect} and {@code consolidate}, and loading the consolidated file as weights. */
class CheckpointCliTest {
  @TempDir Path root;

  private record Run(int code, String out) {}

  private static Run weft(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      int code = WeftMain.commandLine().execute(args);
      return new Run(code, buf.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(old);
    }
  }

  private void saveTpTwo(long step) {
    CheckpointMeta meta = new CheckpointMeta(step, new CheckpointMeta.Mesh(1, 2, 1), 1,
        ManifestIO.json().createObjectNode().set("model", ManifestIO.json().createObjectNode().put("factory", "gpt")), Map.of());
    TestState.saveAsThreads(root, 2, meta, rank -> TestState.entries(1, TestState.tpLayout(rank, 2), true, ScalarType.Float));
  }

  @Test
  void inspectShowsStepLayoutTensorsAndIntegrity() throws Exception {
    saveTpTwo(12);
    Run r = weft("checkpoint", "inspect", root.toString());
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("step 12", "tp=2", "zero 1", "2 shard file(s)", "model/blocks.0.attn.q.weight", "[8, 6]", "integrity: OK");
    Path shard = root.resolve("step-000012/rank-00001.safetensors");
    try (RandomAccessFile f = new RandomAccessFile(shard.toFile(), "rw")) {
      f.seek(f.length() - 1);
      f.write(0x7f);
    }
    Run bad = weft("checkpoint", "inspect", root.resolve("step-000012").toString());
    assertThat(bad.code()).isEqualTo(1);
    assertThat(bad.out()).contains("DAMAGED", shard.toString());
  }

  @Test
  void consolidateWritesOneFileThatLoadsAsWeights() throws Exception {
    saveTpTwo(3);
    Path out = root.resolve("export/model.safetensors");
    Run r = weft("checkpoint", "consolidate", root.toString(), "-o", out.toString());
    assertThat(r.code()).as(r.out()).isZero();
    assertThat(Files.readString(root.resolve("export/model.config.json"))).contains("\"factory\"", "gpt");
    Map<String, Tensor> w = ConsolidatedWeights.load(out);
    assertThat(w).containsOnlyKeys("blocks.0.attn.q.weight", "blocks.0.attn.q.bias", "blocks.0.mlp.down.weight");
    Map<String, long[]> shapes = TestState.shapes();
    w.forEach((name, t) -> {
      Tensor expected = TestState.global("model/" + name, shapes.get("model/" + name), 1);
      assertThat(t.sizes().vec().get()).containsExactly(shapes.get("model/" + name));
      assertThat(Tensors.toFloats(t)).containsExactly(Tensors.toFloats(expected));
    });
    assertThat(IndependentSafetensorsReader.readF32(out)).containsOnlyKeys(w.keySet());
  }
}
