package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.util.Tensors;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Python's own {@code safetensors} package reads every shard of a two-rank save (values compared),
 * and a bf16 shard (dtype and shape).
 * Skipped where python3 cannot import safetensors (put it on PYTHONPATH to run this).
 */
class PythonSafetensorsTest {
  private static final String SCRIPT = """
      import json, sys
      from safetensors import safe_open
      out = {}
      for path in sys.argv[1:]:
          with safe_open(path, framework="numpy") as f:
              meta = f.metadata()
              for k in f.keys():
                  sl = f.get_slice(k)
                  entry = {"dtype": sl.get_dtype(), "shape": list(sl.get_shape()), "meta": meta}
                  if sl.get_dtype() == "F32":
                      t = f.get_tensor(k)
                      entry["values"] = [float(v) for v in t.reshape(-1)]
                  out[path + "::" + k] = entry
      print(json.dumps(out))
      """;

  @TempDir Path root;

  private static boolean pythonHasSafetensors() {
    try {
      Process p = new ProcessBuilder("python3", "-c", "import safetensors").redirectErrorStream(true).start();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  void pythonSafetensorsReadsEveryShard() throws Exception {
    assumeTrue(pythonHasSafetensors(), "python3 cannot import safetensors");
    TestState.saveAsThreads(root, 2, new CheckpointMeta(9, new CheckpointMeta.Mesh(2, 1, 1), 1, null, Map.of()),
        rank -> TestState.entries(2, TestState.zeroLayout(rank, 2), true, ScalarType.Float));
    Path bf16Root = root.resolve("bf16");
    try (Checkpointer c = Checkpointer.local(bf16Root, new Checkpointer.Options(0, false, Duration.ofSeconds(60)))) {
      c.save(new CheckpointMeta(9, new CheckpointMeta.Mesh(1, 1, 1), 0, null, Map.of()),
          TestState.entries(2, TestState.zeroLayout(0, 2), true, ScalarType.BFloat16));
    }
    Path dir = root.resolve("step-000009");
    Path script = root.resolve("read.py");
    Files.writeString(script, SCRIPT);
    List<String> cmd = new java.util.ArrayList<>(List.of("python3", script.toString()));
    cmd.add(dir.resolve("rank-00000.safetensors").toString());
    cmd.add(dir.resolve("rank-00001.safetensors").toString());
    cmd.add(bf16Root.resolve("step-000009/rank-00000.safetensors").toString());
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    JsonNode got = ManifestIO.json().readTree(new String(out, StandardCharsets.UTF_8));
    Map<String, long[]> shapes = TestState.shapes();
    for (String name : shapes.keySet()) {
      JsonNode f32 = got.get(dir.resolve("rank-00000.safetensors") + "::" + name);
      JsonNode f32b = got.get(dir.resolve("rank-00001.safetensors") + "::" + name);
      JsonNode bf16 = got.get(bf16Root.resolve("step-000009/rank-00000.safetensors") + "::" + name);
      assertThat(f32b.get("dtype").asText()).isEqualTo("F32");
      assertThat(bf16.get("shape")).isEqualTo(f32.get("shape"));
      assertThat(f32.get("dtype").asText()).isEqualTo("F32");
      assertThat(bf16.get("dtype").asText()).isEqualTo("BF16");
      assertThat(f32.get("meta").get("format").asText()).isEqualTo("pt");
      TensorSlice s = TestState.zeroLayout(0, 2).apply(name);
      float[] expected = Tensors.toFloats(TestState.cut(TestState.global(name, shapes.get(name), 2), s, ScalarType.Float));
      long[] shape = new long[f32.get("shape").size()];
      for (int i = 0; i < shape.length; i++) shape[i] = f32.get("shape").get(i).asLong();
      assertThat(shape).containsExactly(s.localShape());
      float[] values = new float[f32.get("values").size()];
      for (int i = 0; i < values.length; i++) values[i] = (float) f32.get("values").get(i).asDouble();
      assertThat(values).containsExactly(expected);
    }
  }
}
