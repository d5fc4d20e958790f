package dev.weft.models.hf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.checkpoint.Checkpoint;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.checkpoint.DType;
import dev.weft.train.RunResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same fine-tune of a Hugging Face directory under two layouts (dp = 1 and dp2·tp2 with a tied, vocabulary-split
 * head; dp = 1 and pp2 with the tied head's copy on the last stage) exports the same tensors, each within 1e-4.
 */
class HfExportLayoutsTest {
  @TempDir Path dir;

  /** A tiny tied Qwen 2 (q/k/v biases) in fp32, so the comparison sees training, not rounding to bf16. */
  private Path source() throws Exception {
    Path source = dir.resolve("source");
    var c = dev.weft.spec.SpecIO.jsonMapper().createObjectNode();
    c.putArray("architectures").add("Qwen2ForCausalLM");
    c.put("model_type", "qwen2").put("hidden_size", 32).put("intermediate_size", 48).put("num_attention_heads", 4)
        .put("num_hidden_layers", 2).put("num_key_value_heads", 2).put("rms_norm_eps", 1e-6).put("rope_theta", 10000.0)
        .put("max_position_embeddings", 64).put("tie_word_embeddings", true).put("torch_dtype", "float32")
        .put("vocab_size", 256).put("initializer_range", 0.05);
    List<HfWeightsWriter.Entry> entries = new ArrayList<>();
    HfShapes.of(c, "x").forEach((n, s) -> entries.add(new HfWeightsWriter.Entry(n, DType.F32, s)));
    assertThat(entries).anyMatch(e -> e.name().endsWith("q_proj.bias"));
    HfWeightsWriter.write(source, entries, e -> HfModelInit.initial(e, 7, 0.05), HfShards.DEFAULT_MAX_BYTES);
    HfFiles.writeJson(source.resolve(HfCheckpoint.CONFIG), c);
    return source;
  }

  private Path fineTuneAndExport(Path source, Trainer t, String name) throws Exception {
    Path ck = dir.resolve(name);
    RunResult r = t.pretrained(source).seqLen(16).globalBatch(4).steps(3).warmup(1).lr(5e-3).seed(3)
        .checkpointEvery(3).checkpointDir(ck).runDir(dir.resolve(name + "-run")).fit();
    assertThat(r.losses()).hasSize(3);
    Checkpoint c = CheckpointResolver.resolve(ck, "latest");
    Path out = dir.resolve(name + "-hf");
    HfExport.write(ConsolidatedWeights.modelTensors(c), c.meta().trainingSpec(), out,
        new HfExport.Options(DType.F32, HfShards.DEFAULT_MAX_BYTES));
    return out;
  }

  @Test
  void exportsOfTwoLayoutsAgreeTensorByTensor() throws Exception {
    Path source = source();
    Map<String, Tensor> one = tensors(fineTuneAndExport(source, Trainer.model("qwen2"), "one"));
    Map<String, Tensor> mesh = tensors(fineTuneAndExport(source, Trainer.model("qwen2").dataParallel(2).tensorParallel(2), "dp2tp2"));
    Map<String, Tensor> pp = tensors(fineTuneAndExport(source, Trainer.model("qwen2").pipeline(2).microBatches(2), "pp2"));
    Map<String, Tensor> start = tensors(source);
    assertThat(one.keySet()).isEqualTo(start.keySet()).isEqualTo(mesh.keySet()).isEqualTo(pp.keySet());
    for (String name : one.keySet()) {
      assertThat(maxDiff(one.get(name), start.get(name))).as("%s moved in training", name).isGreaterThan(1e-4);
      assertThat(maxDiff(mesh.get(name), one.get(name))).as("%s: dp2·tp2 vs dp=1", name).isLessThanOrEqualTo(1e-4);
      assertThat(maxDiff(pp.get(name), one.get(name))).as("%s: pp2 vs dp=1", name).isLessThanOrEqualTo(1e-4);
    }
  }

  private static double maxDiff(Tensor a, Tensor b) {
    assertThat(a.sizes().vec().get()).isEqualTo(b.sizes().vec().get());
    return a.sub(b).abs().max().item_double();
  }

  /** Every tensor of a Hugging Face directory, by name. */
  private static Map<String, Tensor> tensors(Path hf) {
    HfCheckpoint c = HfCheckpoint.open(hf, "test");
    Map<String, Tensor> all = new TreeMap<>();
    for (String name : c.names()) all.put(name, c.read(name));
    return all;
  }
}
