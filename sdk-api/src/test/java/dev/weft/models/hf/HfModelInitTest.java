package dev.weft.models.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.checkpoint.DType;
import dev.weft.data.TokenArray;
import dev.weft.eval.Evaluation;
import dev.weft.eval.ModelSource;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import dev.weft.testing.PythonRef;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code weft model init --like}: published shapes and parameter counts, written a tensor at a time, loadable by Weft. */
class HfModelInitTest {
  @TempDir Path dir;

  /** The totals the model cards and {@code sum(p.numel() for p in model.parameters())} give. */
  @ParameterizedTest
  @CsvSource({"llama-3.2-1b, 1235814400", "llama-3.2-3b, 3212749824", "llama-3.1-8b, 8030261248", "qwen2.5-0.5b, 494032768",
      "qwen2.5-1.5b, 1543714304", "qwen3-0.6b, 596049920", "mistral-7b-v0.3, 7248023552", "smollm2-135m, 134515008",
      "tinyllama-1.1b, 1100048384"})
  void parameterCountsAreThePublishedOnes(String like, long published) {
    assertThat(HfShapes.parameters(HfShapes.of(HfModelInit.config(like, "--like"), "--like"))).isEqualTo(published);
  }

  @Test
  void eachFamilyHasItsOwnTensors() {
    JsonNode llama = HfModelInit.config("llama-3.2-1b", "--like");
    assertThat(llama.path("rope_scaling").path("rope_type").asText()).isEqualTo("llama3");
    assertThat(HfShapes.of(llama, "x")).doesNotContainKey("lm_head.weight").doesNotContainKey("model.layers.0.self_attn.q_proj.bias");
    Map<String, long[]> qwen2 = HfShapes.of(HfModelInit.config("qwen2.5-0.5b", "--like"), "x");
    assertThat(qwen2.get("model.layers.0.self_attn.k_proj.bias")).containsExactly(128);
    assertThat(qwen2).doesNotContainKey("model.layers.0.self_attn.o_proj.bias");
    Map<String, long[]> qwen3 = HfShapes.of(HfModelInit.config("qwen3-0.6b", "--like"), "x");
    assertThat(qwen3.get("model.layers.0.self_attn.q_proj.weight")).containsExactly(2048, 1024); // head_dim 128 ≠ 1024 / 16
    assertThat(qwen3.get("model.layers.27.self_attn.k_norm.weight")).containsExactly(128);
    assertThat(HfShapes.of(HfModelInit.config("mistral-7b-v0.3", "--like"), "x")).containsKey("lm_head.weight");
    assertThatThrownBy(() -> HfModelInit.config("gpt-5", "--like")).isInstanceOf(SpecException.class).hasMessageStartingWith("--like: 'gpt-5'");
  }

  @Test
  void smolLm2IsWrittenInShardsThatPythonAndWeftRead() throws Exception {
    Path out = dir.resolve("smol");
    HfModelInit.Result r = HfModelInit.write("smollm2-135m", out, DType.BF16, 7, 100_000_000L);
    assertThat(r.parameters()).isEqualTo(134_515_008L);
    assertThat(r.files()).isEqualTo(3);
    assertThat(out.resolve("model-00002-of-00003.safetensors")).isRegularFile();
    JsonNode index = SpecIO.jsonMapper().readTree(out.resolve(HfCheckpoint.INDEX).toFile());
    assertThat(index.path("metadata").path("total_size").asLong()).isEqualTo(2 * 134_515_008L);
    assertThat(index.path("weight_map").size()).isEqualTo(272);
    JsonNode config = SpecIO.jsonMapper().readTree(out.resolve(HfCheckpoint.CONFIG).toFile());
    assertThat(config).isEqualTo(withDtype(HfModelInit.config("smollm2-135m", "x"), "bfloat16"));
    assertThat(SpecIO.jsonMapper().readTree(out.resolve(HfFiles.GENERATION_CONFIG).toFile()).path("eos_token_id").asInt()).isEqualTo(0);

    PythonRef.require("safetensors", "numpy");
    String script = """
        import json, sys
        from safetensors import safe_open
        d = sys.argv[1]
        m = json.load(open(d + '/model.safetensors.index.json'))['weight_map']
        n, dtypes = 0, set()
        for f in sorted(set(m.values())):
            with safe_open(d + '/' + f, 'np') as s:
                for k in s.keys():
                    sl = s.get_slice(k)
                    dtypes.add(sl.get_dtype())
                    size = 1
                    for x in sl.get_shape(): size *= x
                    n += size
        print(n, sorted(dtypes))
        """;
    Process p = new ProcessBuilder(PythonRef.python(), "-c", script, out.toString()).redirectErrorStream(true).start();
    String said = new String(p.getInputStream().readAllBytes()).trim();
    assertThat(p.waitFor()).as(said).isZero();
    assertThat(said).isEqualTo("134515008 ['BF16']");

    int[] data = new java.util.Random(3).ints(3 * 17, 0, 49152).toArray();
    TokenArray tokens = new TokenArray() {
      @Override public long size() { return data.length; }
      @Override public int get(long i) { return data[(int) i]; }
    };
    double loss = Evaluation.run(ModelSource.open(out, 16).model(), tokens, 16).loss();
    assertThat(loss).isBetween(Math.log(49152) - 1, Math.log(49152) + 2); // random weights: about uniform over the vocabulary
  }

  private static JsonNode withDtype(JsonNode c, String dtype) {
    ((com.fasterxml.jackson.databind.node.ObjectNode) c).put("torch_dtype", dtype);
    return c;
  }

  @Test
  void hubSizesParseAsTheHubReadsThem() {
    assertThat(HfShards.parseSize("5GB")).isEqualTo(5_000_000_000L);
    assertThat(HfShards.parseSize("2GiB")).isEqualTo(2L << 30);
    assertThat(HfShards.parseSize("500MB")).isEqualTo(500_000_000L);
    assertThat(HfShards.parseSize("1234")).isEqualTo(1234L);
    assertThat(HfShards.parseSize("five")).isNull();
    assertThat(HfShards.plan(new long[] {4, 4, 4, 9, 1}, 8)).containsExactly(0, 0, 1, 2, 3);
    assertThat(HfShards.fileName(1, 3)).isEqualTo("model-00002-of-00003.safetensors");
    assertThat(HfShards.fileName(0, 1)).isEqualTo("model.safetensors");
    assertThat(List.of(HfDtypes.parse("bf16"), HfDtypes.parse("float32"))).containsExactly(DType.BF16, DType.F32);
  }

  /** Each preset shrunk to a few thousand parameters, written with HfShapes' names, loads into Weft's family for it (which refuses extra or missing tensors). */
  @ParameterizedTest
  @CsvSource({"llama-3.2-1b", "llama-3.1-8b", "qwen2.5-0.5b", "qwen3-0.6b", "mistral-7b-v0.3", "smollm2-135m", "tinyllama-1.1b"})
  void hfShapesNameWhatEachFamilyLoads(String like) throws Exception {
    com.fasterxml.jackson.databind.node.ObjectNode c = HfModelInit.config(like, "--like");
    c.put("vocab_size", 256).put("hidden_size", 32).put("intermediate_size", 48).put("num_hidden_layers", 2)
        .put("num_attention_heads", 4).put("num_key_value_heads", 2).put("torch_dtype", "float32");
    if (c.has("head_dim")) c.put("head_dim", like.startsWith("qwen3") ? 16 : 8);
    Path out = dir.resolve(like);
    List<HfWeightsWriter.Entry> entries = new java.util.ArrayList<>();
    HfShapes.of(c, "x").forEach((n, shape) -> entries.add(new HfWeightsWriter.Entry(n, DType.F32, shape)));
    HfWeightsWriter.write(out, entries, e -> HfModelInit.initial(e, 1, 0.02), HfShards.DEFAULT_MAX_BYTES);
    HfFiles.writeJson(out.resolve(HfCheckpoint.CONFIG), c);
    int[] data = new java.util.Random(3).ints(2 * 17, 0, 256).toArray();
    TokenArray tokens = new TokenArray() {
      @Override public long size() { return data.length; }
      @Override public int get(long i) { return data[(int) i]; }
    };
    double loss = Evaluation.run(ModelSource.open(out, 16).model(), tokens, 16).loss();
    assertThat(loss).isBetween(Math.log(256) - 0.5, Math.log(256) + 0.5);
  }

  /** Issue 42: {@code --set} shapes a published config down, {@code --tokenizer} copies a tokenizer in with its bos/eos ids. */
  @Test
  void setChangesThePublishedShapeAndTheTokenizerComesWithItsEndOfTurn() throws Exception {
    Path tok = dev.weft.train.PreferenceFixture.tokenizer(dir.resolve("tok")); // 32 tokens, eos_token <|im_end|> = 0, no bos_token
    Path out = dir.resolve("small");
    HfModelInit.Result r = HfModelInit.write("qwen2.5-0.5b", List.of("vocab_size=64", "hidden_size=32", "intermediate_size=48",
        "num_hidden_layers=2", "num_attention_heads=4", "num_key_value_heads=2", "rms_norm_eps=1e-5"), tok, out, DType.F32, 1,
        HfShards.DEFAULT_MAX_BYTES);
    JsonNode config = SpecIO.jsonMapper().readTree(out.resolve(HfCheckpoint.CONFIG).toFile());
    assertThat(config.path("hidden_size").asInt()).isEqualTo(32);
    assertThat(config.path("rms_norm_eps").asDouble()).isEqualTo(1e-5);
    assertThat(config.path("max_position_embeddings").asInt()).as("the rest as published").isEqualTo(32768);
    assertThat(config.path("eos_token_id").asLong()).isZero();
    assertThat(config.has("bos_token_id")).as("the published bos 151643 is outside 64 tokens and the tokenizer names none").isFalse();
    assertThat(r.parameters()).isEqualTo(HfShapes.parameters(HfShapes.of(config, "x")));
    assertThat(out.resolve("tokenizer.json")).hasSameBinaryContentAs(tok.resolve("tokenizer.json"));
    assertThat(out.resolve("tokenizer_config.json")).isRegularFile();
    assertThat(SpecIO.jsonMapper().readTree(out.resolve(HfFiles.GENERATION_CONFIG).toFile()).path("eos_token_id").asLong()).isZero();
    assertThat(ModelSource.tokenizerDir(out)).contains(out);
    int[] data = new java.util.Random(3).ints(2 * 17, 0, 64).toArray();
    TokenArray tokens = new TokenArray() {
      @Override public long size() { return data.length; }
      @Override public int get(long i) { return data[(int) i]; }
    };
    assertThat(Evaluation.run(ModelSource.open(out, 16).model(), tokens, 16).loss()).isBetween(Math.log(64) - 0.5, Math.log(64) + 0.5);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "hidden=32 | --set: 'hidden' is not a key of this config.json; known: [",
      "hidden_size | --set: 'hidden_size' is not KEY=VALUE",
      "hidden_size=abc | --set: hidden_size=abc: hidden_size is a whole number",
      "hidden_size=0 | --set: hidden_size=0: hidden_size is a whole number from 1",
      "hidden_size=900 | --set: num_attention_heads=14 does not divide hidden_size=900",
      "num_key_value_heads=3 | --set: num_key_value_heads=3 does not divide num_attention_heads=14",
      "tie_word_embeddings=maybe | --set: tie_word_embeddings=maybe: tie_word_embeddings is true or false",
      "rope_theta=-1 | --set: rope_theta=-1: rope_theta is a finite number >= 0",
      "vocab_size=64 | --set: bos_token_id=151643 is outside vocab_size=64; --set bos_token_id=ID, or give --tokenizer"})
  void aBadSetIsOneLineNamingIt(String set, String message) {
    assertThatThrownBy(() -> HfModelInit.config("qwen2.5-0.5b", List.of(set), null)).isInstanceOf(SpecException.class)
        .hasMessageStartingWith(message);
  }

  @Test
  void aTokenizerLargerThanTheVocabularyOrMissingIsOneLine() throws Exception {
    Path tok = dev.weft.train.PreferenceFixture.tokenizer(dir.resolve("tok"));
    assertThatThrownBy(() -> HfModelInit.config("qwen2.5-0.5b", List.of("vocab_size=16"), tok)).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("--tokenizer: " + tok + " has 32 tokens, more than vocab_size=16; add --set vocab_size=32");
    assertThatThrownBy(() -> HfModelInit.config("qwen2.5-0.5b", List.of(), dir)).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("--tokenizer: " + dir + " holds no tokenizer.json");
  }
}
