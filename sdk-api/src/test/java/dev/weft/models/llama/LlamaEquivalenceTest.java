package dev.weft.models.llama;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.spec.SpecException;
import dev.weft.train.RunResult;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.data.TokenArray;
import dev.weft.eval.Evaluation;
import dev.weft.eval.Generation;
import dev.weft.models.CausalLm;
import dev.weft.models.LanguageModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Llama trains step for step the same in every layout as on one rank (same seed, same weights). */
class LlamaEquivalenceTest {
  @TempDir Path dir;

  static Trainer small() {
    return Trainer.model("llama").set("model.config.hidden_size", 32).set("model.config.intermediate_size", 48)
        .set("model.config.num_hidden_layers", 4).set("model.config.num_attention_heads", 4)
        .set("model.config.num_key_value_heads", 2).seqLen(16).globalBatch(8).microBatches(2).steps(6).warmup(2)
        .lr(3e-3).seed(31);
  }

  @ParameterizedTest
  @ValueSource(strings = {"dp2", "tp2", "tp2sp", "pp2", "zero3dp2", "dp2tp2zero1", "recompute"})
  void layoutMatchesOneRank(String layout) {
    RunResult one = small().runDir(dir.resolve("ref")).fit();
    Trainer t = switch (layout) {
      case "dp2" -> small().dataParallel(2);
      case "tp2" -> small().tensorParallel(2);
      case "tp2sp" -> small().tensorParallel(2).sequenceParallel();
      case "pp2" -> small().pipeline(2);
      case "zero3dp2" -> small().dataParallel(2).microBatches(1).zero(3);
      case "dp2tp2zero1" -> small().dataParallel(2).tensorParallel(2).microBatches(1).zero(1);
      case "recompute" -> small().recompute();
      default -> throw new IllegalArgumentException(layout);
    };
    RunResult other = t.runDir(dir.resolve(layout)).fit();
    assertClose(other.losses(), one.losses(), 1e-4);
    assertThat(other.summary().parameters()).isEqualTo(one.summary().parameters());
    assertThat(other.losses().get(other.losses().size() - 1)).isLessThan(other.losses().get(0));
  }

  @Test
  void bf16TracksFp32AcrossTensorParallelism() {
    RunResult fp32 = small().steps(12).runDir(dir.resolve("p32")).fit();
    RunResult bf16 = small().steps(12).precision("bf16").tensorParallel(2).runDir(dir.resolve("p16")).fit();
    double a = fp32.losses().get(11), b = bf16.losses().get(11);
    assertThat(Math.abs(a - b) / a).isLessThanOrEqualTo(0.05);
    assertThat(b).isLessThan(bf16.losses().get(0));
    assertThat(bf16.summary().precision()).isEqualTo("bf16");
  }

  /** Checkpointed layers recompute under the forward's autocast: bf16 with recompute trains as bf16 without. */
  @Test
  void recomputeUnderBf16MatchesBf16() {
    RunResult plain = small().precision("bf16").runDir(dir.resolve("b16")).fit();
    RunResult recomputed = small().precision("bf16").recompute().runDir(dir.resolve("b16r")).fit();
    assertClose(recomputed.losses(), plain.losses(), 1e-7); // the same ops: equal (recomputed in fp32, 1.2e-5 at step 2)
  }

  @Test
  void tiedEmbeddingsTrainUnderTensorParallelism() {
    RunResult one = small().set("model.config.tie_word_embeddings", true).runDir(dir.resolve("t1")).fit();
    RunResult tp = small().set("model.config.tie_word_embeddings", true).tensorParallel(2).runDir(dir.resolve("t2")).fit();
    assertClose(tp.losses(), one.losses(), 1e-4);
    assertThat(one.summary().parameters()).isEqualTo(new dev.weft.models.decoder.DecoderConfig(256, 32, 48, 4, 4, 2, 8,
        dev.weft.models.decoder.DecoderConfig.Norm.RMS, 1e-6, dev.weft.models.decoder.RopeScaling.plain(1e4), false, false, false,
        false, null, dev.weft.models.decoder.DecoderConfig.Mlp.SWIGLU, true, 0.02, 16, List.of()).parameterCount());
  }

  @Test
  void evalLossIsWrittenAndTheSameInEveryLayout() throws Exception {
    small().set("train.evalEvery", 3).set("data.validation", 0.1).runDir(dir.resolve("e1")).fit();
    small().set("train.evalEvery", 3).set("data.validation", 0.1).dataParallel(2).tensorParallel(2).microBatches(1).zero(3)
        .runDir(dir.resolve("e4")).fit();
    List<Double> one = evalLosses(dir.resolve("e1")), four = evalLosses(dir.resolve("e4"));
    assertThat(one).hasSize(2);
    assertClose(four, one, 1e-4);
    assertThatThrownBy(() -> small().set("train.evalEvery", 3).toSpec()).hasMessageContaining("data.validation");
  }

  private static List<Double> evalLosses(Path run) throws Exception {
    List<Double> out = new ArrayList<>();
    for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) {
      JsonNode n = new ObjectMapper().readTree(line);
      if (n.has("eval_loss")) out.add(n.get("eval_loss").asDouble());
    }
    return out;
  }

  @Test
  void fitReturnsTheTrainedModelWhole() {
    RunResult one = small().steps(3).runDir(dir.resolve("w1")).fit();
    RunResult split = small().steps(3).tensorParallel(2).pipeline(2).runDir(dir.resolve("w4")).fit();
    assertThat(split.weights().keySet()).containsExactlyInAnyOrderElementsOf(one.weights().keySet());
    for (String name : one.weights().keySet()) {
      Tensor a = one.weights().get(name), b = split.weights().get(name);
      assertThat(b.sizes().vec().get()).as(name).isEqualTo(a.sizes().vec().get());
      assertThat(a.sub(b).abs().max().item_double()).as(name).isLessThan(1e-4);
    }
    LanguageModel m = split.model();
    int[] data = new java.util.Random(1).ints(16 * 3 + 1, 0, 256).toArray();
    TokenArray tokens = new TokenArray() {
      @Override public long size() { return data.length; }
      @Override public int get(long i) { return data[(int) i]; }
    };
    double viaSplit = Evaluation.run(m, tokens, 16).loss(), viaOne = Evaluation.run(one.model(), tokens, 16).loss();
    assertThat(Math.abs(viaSplit - viaOne) / viaOne).isLessThan(1e-4);
    assertThat(Generation.generate((CausalLm) m, new long[] {1, 2, 3}, 4, Generation.Sampling.GREEDY)).hasSize(4);
    long[] sampled = Generation.generate((CausalLm) m, new long[] {1, 2, 3}, 6, new Generation.Sampling(0.8, 20, 0.9, 42));
    assertThat(java.util.Arrays.stream(sampled).allMatch(id -> id >= 0 && id < 256)).isTrue();
    assertThat(sampled).hasSize(6);
    assertThat(Generation.generate((CausalLm) m, new long[] {1, 2, 3}, 6, new Generation.Sampling(0.8, 20, 0.9, 42))).isEqualTo(sampled);
  }

  @Test
  void layoutErrorsAtValidation() {
    assertThatThrownBy(() -> small().tensorParallel(4).toSpec()).isInstanceOf(SpecException.class)
        .hasMessageContaining("num_key_value_heads=2");
    assertThatThrownBy(() -> small().set("model.config.num_key_value_heads", 3).toSpec())
        .hasMessageContaining("model.config.num_key_value_heads");
    assertThatThrownBy(() -> small().set("model.config.layers", 2).toSpec()).hasMessageContaining("model.config.layers");
  }
}
