package dev.weft.models.hf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.Trainer;
import dev.weft.checkpoint.Checkpoint;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.checkpoint.DType;
import dev.weft.data.TokenArray;
import dev.weft.eval.Evaluation;
import dev.weft.eval.ModelSource;
import dev.weft.spec.SpecIO;
import dev.weft.testing.PythonRef;
import dev.weft.train.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fine-tune a Hugging Face directory, export it: the source's config.json, tokenizer and dtype come back, and so does the model. */
class HfExportRoundTripTest {
  static final List<String> TOKENIZER = List.of("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
      "generation_config.json", "tokenizer.model");

  @TempDir Path dir;
  Path source;

  /** A tiny Llama as the Hub has them: fields Weft does not read, an eos list, bf16 weights, tokenizer files. */
  @BeforeEach
  void source() throws Exception {
    source = dir.resolve("source");
    ObjectNode c = SpecIO.jsonMapper().createObjectNode();
    c.putArray("architectures").add("LlamaForCausalLM");
    c.put("attention_bias", false).put("attention_dropout", 0.0).put("bos_token_id", 1);
    c.putArray("eos_token_id").add(2).add(3);
    c.put("hidden_act", "silu").put("hidden_size", 32).put("initializer_range", 0.05).put("intermediate_size", 48)
        .put("max_position_embeddings", 256).put("model_type", "llama").put("num_attention_heads", 4)
        .put("num_hidden_layers", 2).put("num_key_value_heads", 2).put("pretraining_tp", 1).put("rms_norm_eps", 1e-5)
        .put("rope_theta", 10000.0).put("tie_word_embeddings", true).put("torch_dtype", "bfloat16")
        .put("transformers_version", "4.45.0").put("use_cache", true).put("vocab_size", 256);
    c.putNull("rope_scaling");
    List<HfWeightsWriter.Entry> entries = new ArrayList<>();
    HfShapes.of(c, "x").forEach((n, s) -> entries.add(new HfWeightsWriter.Entry(n, DType.BF16, s)));
    HfWeightsWriter.write(source, entries, e -> HfModelInit.initial(e, 5, 0.05), HfShards.DEFAULT_MAX_BYTES);
    HfFiles.writeJson(source.resolve(HfCheckpoint.CONFIG), c);
    for (String f : TOKENIZER) Files.writeString(source.resolve(f), "{\"from\": \"" + f + "\"}\n");
  }

  private Checkpoint fineTune(Trainer t, String name) {
    Path ck = dir.resolve(name);
    RunResult r = t.pretrained(source).seqLen(16).globalBatch(4).steps(2).lr(1e-2).seed(3).checkpointEvery(2).checkpointDir(ck)
        .runDir(dir.resolve(name + "-run")).fit();
    assertThat(r.losses()).hasSize(2);
    return CheckpointResolver.resolve(ck, "latest");
  }

  private static HfExport.Result export(Checkpoint c, Path out, DType dtype, long maxShard) throws Exception {
    return HfExport.write(ConsolidatedWeights.modelTensors(c), c.meta().trainingSpec(), out, new HfExport.Options(dtype, maxShard));
  }

  @Test
  void exportKeepsTheSourceAndLoadsBackWithTheSameLoss() throws Exception {
    Checkpoint c = fineTune(Trainer.model("llama"), "plain");
    Path same = dir.resolve("same"), fp32 = dir.resolve("fp32"), sharded = dir.resolve("sharded");
    HfExport.Result r = export(c, same, null, HfShards.DEFAULT_MAX_BYTES);
    assertThat(r.dtype()).isEqualTo(DType.BF16); // the source's
    assertThat(r.changed()).isEmpty();
    assertThat(json(same.resolve("config.json"))).isEqualTo(json(source.resolve("config.json")));
    for (String f : TOKENIZER) assertThat(same.resolve(f)).hasSameTextualContentAs(source.resolve(f));
    assertThat(r.copied()).containsAll(TOKENIZER);
    PythonRef.require("safetensors", "numpy");
    assertThat(dtypes(same)).isEqualTo("['BF16']");

    HfExport.Result full = export(c, fp32, DType.F32, HfShards.DEFAULT_MAX_BYTES);
    assertThat(full.changed()).containsOnlyKeys("torch_dtype");
    assertThat(differingKeys(json(fp32.resolve("config.json")), json(source.resolve("config.json")))).containsExactly("torch_dtype");
    assertThat(dtypes(fp32)).isEqualTo("['F32']");
    double trained = loss(ModelSource.fromWeights(c.meta().trainingSpec(), ConsolidatedWeights.modelTensors(c)));
    assertThat(Math.abs(loss(ModelSource.open(fp32, 16)) - trained)).isLessThan(1e-5 * trained);
    HfExport.Result shards = export(c, sharded, DType.F32, 20_000);
    assertThat(shards.files()).isGreaterThan(2);
    assertThat(sharded.resolve(HfCheckpoint.INDEX)).isRegularFile();
    assertThat(Math.abs(loss(ModelSource.open(sharded, 16)) - trained)).isLessThan(1e-5 * trained);
    assertThat(Math.abs(loss(ModelSource.open(same, 16)) - trained)).isLessThan(2e-2 * trained); // bf16 rounding
  }

  @Test
  void aSettingTheRunChangedIsTheOnlyKeyThatDiffers() throws Exception {
    Checkpoint c = fineTune(Trainer.model("llama").set("model.config.rms_norm_eps", 1e-6), "eps");
    HfExport.Result r = export(c, dir.resolve("eps-out"), null, HfShards.DEFAULT_MAX_BYTES);
    assertThat(r.changed()).containsOnlyKeys("rms_norm_eps");
    JsonNode out = json(dir.resolve("eps-out/config.json"));
    assertThat(differingKeys(out, json(source.resolve("config.json")))).containsExactly("rms_norm_eps");
    assertThat(out.get("rms_norm_eps").asDouble()).isEqualTo(1e-6);
  }

  private static double loss(ModelSource.Loaded m) {
    int[] data = new java.util.Random(9).ints(4 * 17, 0, 256).toArray();
    TokenArray tokens = new TokenArray() {
      @Override public long size() { return data.length; }
      @Override public int get(long i) { return data[(int) i]; }
    };
    return Evaluation.run(m.model(), tokens, 16).loss();
  }

  private static JsonNode json(Path p) throws Exception { return SpecIO.jsonMapper().readTree(p.toFile()); }

  private static Set<String> differingKeys(JsonNode a, JsonNode b) {
    Set<String> keys = new TreeSet<>();
    for (Iterator<String> it = a.fieldNames(); it.hasNext(); ) keys.add(it.next());
    for (Iterator<String> it = b.fieldNames(); it.hasNext(); ) keys.add(it.next());
    keys.removeIf(k -> a.path(k).equals(b.path(k)));
    return keys;
  }

  /** The dtypes Python's safetensors reads from every weights file of {@code d}. */
  private static String dtypes(Path d) throws Exception {
    String script = """
        import glob, sys
        from safetensors import safe_open
        seen = set()
        for f in glob.glob(sys.argv[1] + '/*.safetensors'):
            with safe_open(f, 'np') as s:
                for k in s.keys():
                    seen.add(s.get_slice(k).get_dtype())
        print(sorted(seen))
        """;
    Process p = new ProcessBuilder(PythonRef.python(), "-c", script, d.toString()).redirectErrorStream(true).start();
    String said = new String(p.getInputStream().readAllBytes()).trim();
    assertThat(p.waitFor()).as(said).isZero();
    return said;
  }
}
