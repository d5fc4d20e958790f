package dev.weft.models.decoder;

import dev.weft.testing.WeftCli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.data.Npy;
import dev.weft.data.TokenWidth;
import dev.weft.models.hf.HfReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each family on the one decoder against an independent NumPy implementation of its Hugging Face
 * semantics, reading the same tiny random directory (written by NumPy + safetensors): llama with
 * rope_scaling llama3 and tied embeddings, qwen2 with q/k/v biases (tied), qwen3 with q/k norms and
 * head_dim 16 ≠ hidden / heads = 8 (rope_parameters spelling), mistral with a window of 8 over 32 tokens.
 */
class HfFamiliesTest {
  static final int SEQ = 32;
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"llama", "qwen2", "qwen3", "mistral"})
  void evalLossAndGreedyIdsMatchTheReference(String family) throws Exception {
    Path model = HfReference.writeFamily(family, dir.resolve(family), 17, family.equals("llama") || family.equals("qwen2"));
    Path tokens = tokens();
    JsonNode eval = eval(model, tokens);
    JsonNode ref = HfReference.numpyReference(model, tokens, SEQ, "5,17,99,3", 8);
    assertThat(eval.get("tokens").asLong()).isEqualTo(ref.get("tokens").asLong()).isEqualTo(SEQ * 4);
    double rel = Math.abs(eval.get("loss").asDouble() - ref.get("loss").asDouble()) / ref.get("loss").asDouble();
    assertThat(rel).as("%s: weft %s vs numpy %s", family, eval.get("loss"), ref.get("loss")).isLessThanOrEqualTo(1e-5);
    assertThat(greedy(model, 8)).as(family).isEqualTo(ids(ref.get("greedy")));
  }

  /** Stop tokens: generation_config.json's eos_token_id list wins over config.json's; generation ends at one (included). */
  @Test
  void generationStopsAtTheFamilysStopTokens() throws Exception {
    Path model = HfReference.writeFamily("qwen2", dir.resolve("q"), 23, true);
    long[] free = ids(HfReference.numpyReference(model, tokens(), SEQ, "5,17,99,3", 8).get("greedy"));
    assertThat(free).isNotEmpty();
    long stop = free[Math.min(2, free.length - 1)];
    Files.writeString(model.resolve("generation_config.json"), "{\"eos_token_id\": [127, " + stop + "]}");
    long[] weft = greedy(model, 8);
    assertThat(weft).isEqualTo(ids(HfReference.numpyReference(model, tokens(), SEQ, "5,17,99,3", 8).get("greedy")));
    assertThat(weft[weft.length - 1]).isEqualTo(stop);
    assertThat(weft.length).isLessThanOrEqualTo(3);
  }

  private Path tokens() {
    Path tokens = dir.resolve("t.npy");
    if (!Files.exists(tokens)) Npy.write(tokens, TokenWidth.UINT16, new Random(3).ints(SEQ * 4 + 5, 0, 128).toArray());
    return tokens;
  }

  private JsonNode eval(Path model, Path tokens) throws Exception {
    Path out = dir.resolve(model.getFileName() + "-eval.json");
    WeftCli.Output r = WeftCli.capture("eval", model.toString(), "--data", tokens.toString(), "--seq-len", String.valueOf(SEQ), "-o", out.toString());
    assertThat(r.code()).as(r.out()).isZero();
    return new ObjectMapper().readTree(out.toFile());
  }

  private static long[] greedy(Path model, int k) {
    WeftCli.Output gen = WeftCli.capture("generate", model.toString(), "--prompt-ids", "5,17,99,3", "--max-new-tokens", String.valueOf(k));
    assertThat(gen.code()).as(gen.out()).isZero();
    return Arrays.stream(gen.out().strip().split(",")).mapToLong(Long::parseLong).toArray();
  }

  private static long[] ids(JsonNode a) {
    long[] out = new long[a.size()];
    for (int i = 0; i < out.length; i++) out[i] = a.get(i).asLong();
    return out;
  }
}
