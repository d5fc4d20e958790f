package dev.weft.models.moe;

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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;
import dev.weft.Trainer;
import dev.weft.checkpoint.Checkpoint;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.checkpoint.DType;
import dev.weft.models.hf.HfCheckpoint;
import dev.weft.models.hf.HfExport;
import dev.weft.models.hf.HfShards;

/**
 * The MoE families against an independent NumPy implementation of their Hugging Face semantics (hf_reference.py),
 * on tiny random directories written by NumPy + safetensors (hf_families.py): mixtral (4 experts, top 2
 * renormalised), qwen2_moe (top 2 not renormalised, a shared expert behind its gate, layer 1 dense), qwen3_moe
 * (q/k norms, norm_topk_prob); each in the Hub's per-expert layout and transformers 5's fused one.
 */
class HfMoeFamiliesTest {
  static final int SEQ = 32;
  @TempDir Path dir;

  @ParameterizedTest
  @CsvSource({"mixtral,true", "qwen2_moe,false", "qwen3_moe,true"})
  void evalLossAndGreedyIdsMatchTheReference(String family, boolean fused) throws Exception {
    Path model = HfReference.writeFamily(family, dir.resolve(family), 17, false, fused);
    Path tokens = dir.resolve("t.npy");
    Npy.write(tokens, TokenWidth.UINT16, new Random(3).ints(SEQ * 4 + 5, 0, 128).toArray());
    JsonNode ref = HfReference.numpyReference(model, tokens, SEQ, "5,17,99,3", 8);
    Path out = dir.resolve("eval.json");
    WeftCli.Output r = WeftCli.capture("eval", model.toString(), "--data", tokens.toString(), "--seq-len", String.valueOf(SEQ),
        "-o", out.toString());
    assertThat(r.code()).as(r.out()).isZero();
    JsonNode eval = new ObjectMapper().readTree(out.toFile());
    assertThat(eval.get("tokens").asLong()).isEqualTo(ref.get("tokens").asLong()).isEqualTo(SEQ * 4);
    double rel = Math.abs(eval.get("loss").asDouble() - ref.get("loss").asDouble()) / ref.get("loss").asDouble();
    assertThat(rel).as("%s: weft %s vs numpy %s", family, eval.get("loss"), ref.get("loss")).isLessThanOrEqualTo(1e-5);
    WeftCli.Output gen = WeftCli.capture("generate", model.toString(), "--prompt-ids", "5,17,99,3", "--max-new-tokens", "8");
    assertThat(gen.code()).as(gen.out()).isZero();
    long[] ids = Arrays.stream(gen.out().strip().split(",")).mapToLong(Long::parseLong).toArray();
    long[] want = new long[ref.get("greedy").size()];
    for (int i = 0; i < want.length; i++) want[i] = ref.get("greedy").get(i).asLong();
    assertThat(ids).as(family).isEqualTo(want);
    assertThat(Files.exists(model.resolve("config.json"))).isTrue();
  }

  /** Fine-tuned one step from a fused Mixtral and exported: the experts come out fused, under the source's names. */
  @Test
  void exportKeepsTheSourcesExpertLayout() throws Exception {
    Path source = HfReference.writeFamily("mixtral", dir.resolve("src"), 5, false, true);
    Path ck = dir.resolve("ck");
    Trainer.model("mixtral").pretrained(source).seqLen(16).globalBatch(2).steps(1).seed(3).checkpointEvery(1).checkpointDir(ck)
        .runDir(dir.resolve("run")).fit();
    Checkpoint c = CheckpointResolver.resolve(ck, "latest");
    Path out = dir.resolve("out");
    HfExport.write(ConsolidatedWeights.modelTensors(c), c.meta().trainingSpec(), out, new HfExport.Options(DType.F32, HfShards.DEFAULT_MAX_BYTES));
    assertThat(HfCheckpoint.open(out, "x").names()).containsExactlyInAnyOrderElementsOf(HfCheckpoint.open(source, "x").names());
    assertThat(HfCheckpoint.open(out, "x").shape("model.layers.0.mlp.experts.gate_up_proj")).containsExactly(4, 96, 32);
  }
}
