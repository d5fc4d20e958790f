package dev.weft.models.llama;

import dev.weft.testing.WeftCli;
import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.Trainer;
import dev.weft.checkpoint.Checkpoint;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.checkpoint.DType;
import dev.weft.models.hf.HfReference;
import dev.weft.data.Npy;
import dev.weft.data.TokenWidth;
import dev.weft.train.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Hugging Face interop of the Llama: eval and greedy generation from a tiny random Hugging Face
 * directory agree with an independent NumPy implementation reading the same files; a pretrained
 * model fine-tunes identically in every layout; export writes back exactly what was loaded.
 */
class HfLlamaTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "tied={0} sharded={1}")
  @CsvSource({"false,false", "true,true"})
  void evalAndGreedyIdsMatchAnIndependentReference(boolean tied, boolean sharded) throws Exception {
    Path model = TinyHfLlama.write(dir.resolve("hf"), 7, tied, sharded);
    Path tokens = dir.resolve("t.npy");
    int[] ids = new Random(3).ints(32 * 5 + 7, 0, TinyHfLlama.VOCAB).toArray();
    Npy.write(tokens, TokenWidth.UINT16, ids);
    Path out = dir.resolve("eval.json");

    assertThat(WeftCli.capture("eval", model.toString(), "--data", tokens.toString(), "--seq-len", "32", "-o", out.toString()).code()).isZero();
    JsonNode eval = new ObjectMapper().readTree(out.toFile());
    WeftCli.Output gen = WeftCli.capture("generate", model.toString(), "--prompt-ids", "5,17,99,3", "--max-new-tokens", "8");
    assertThat(gen.code()).isZero();
    long[] greedy = Arrays.stream(gen.out().strip().split(",")).mapToLong(Long::parseLong).toArray();

    JsonNode ref = HfReference.numpyReference(model, tokens, 32, "5,17,99,3", 8);
    assertThat(eval.get("tokens").asLong()).isEqualTo(ref.get("tokens").asLong()).isEqualTo(32 * 5);
    double rel = Math.abs(eval.get("loss").asDouble() - ref.get("loss").asDouble()) / ref.get("loss").asDouble();
    assertThat(rel).as("weft %s vs numpy %s", eval.get("loss"), ref.get("loss")).isLessThanOrEqualTo(1e-4);
    assertThat(eval.get("perplexity").asDouble()).isCloseTo(Math.exp(eval.get("loss").asDouble()), org.assertj.core.data.Offset.offset(1e-9));
    long[] refIds = new long[8];
    for (int i = 0; i < 8; i++) refIds[i] = ref.get("greedy").get(i).asLong();
    assertThat(greedy).isEqualTo(refIds);
  }

  @Test
  void userErrorsAreOneLineAndNamed() throws Exception { // each a file or flag the user gave: exit 2 (issue 41 item 5)
    Path model = TinyHfLlama.write(dir.resolve("hf"), 7, false, false);
    Path tokens = dir.resolve("big.npy");
    Npy.write(tokens, TokenWidth.UINT16, new int[] {1, 2, 3, 999, 4, 5, 6, 7, 8});
    WeftCli.Output badToken = WeftCli.capture("eval", model.toString(), "--data", tokens.toString(), "--seq-len", "4", "-o",
        dir.resolve("e.json").toString());
    WeftCli.Output notAModel = WeftCli.capture("eval", dir.toString(), "--data", tokens.toString(), "--seq-len", "4");
    WeftCli.Output noTokenizer = WeftCli.capture("generate", model.toString(), "--prompt", "hi", "--max-new-tokens", "2");
    assertThat(List.of(badToken.code(), notAModel.code(), noTokenizer.code())).containsOnly(2);
    String text = badToken.err() + "\n" + notAModel.err() + "\n" + noTokenizer.err();
    assertThat(text).contains("token 999 at position 3 is outside the model's vocabulary of 256")
        .contains("neither a Hugging Face directory").contains("--prompt needs a tokenizer").doesNotContain("\tat ");
  }

  static Trainer fineTune(Path hf) {
    return Trainer.model("llama").pretrained(hf).seqLen(16).globalBatch(8).microBatches(2).steps(5).warmup(1).lr(2e-3).seed(5);
  }

  @Test
  void pretrainedFineTunesTheSameInEveryLayout() throws Exception {
    Path hf = TinyHfLlama.write(dir.resolve("hf"), 11, false, false);
    RunResult one = fineTune(hf).runDir(dir.resolve("one")).fit();
    RunResult dpTp = fineTune(hf).dataParallel(2).tensorParallel(2).microBatches(1).runDir(dir.resolve("dptp")).fit();
    RunResult ppZero = fineTune(hf).dataParallel(2).pipeline(2).microBatches(2).globalBatch(8).zero(1).runDir(dir.resolve("ppz")).fit();
    assertClose(dpTp.losses(), one.losses(), 1e-4);
    assertClose(ppZero.losses(), one.losses(), 1e-4);
    // starting from the pretrained weights, not random ones: the first loss is the model's loss on that batch
    RunResult random = Trainer.model("llama").set("model.config.hidden_size", 32).set("model.config.intermediate_size", 48)
        .set("model.config.num_hidden_layers", 2).seqLen(16).globalBatch(8).microBatches(2).steps(1).seed(5)
        .runDir(dir.resolve("random")).fit();
    assertThat(Math.abs(random.losses().get(0) - one.losses().get(0))).isGreaterThan(1e-3);
  }

  @Test
  void exportRoundTripsBitForBit() throws Exception {
    Path hf = TinyHfLlama.write(dir.resolve("hf"), 13, false, true);
    // a step whose update is far below fp32 resolution leaves the weights bit-identical, in a split layout
    fineTune(hf).tensorParallel(2).microBatches(1).steps(1).lr(1e-30).minLr(0).warmup(0).set("train.weightDecay", 0)
        .checkpointEvery(1).runDir(dir.resolve("run")).fit();
    Path out = dir.resolve("exported");
    assertThat(WeftCli.capture("checkpoint", "export", dir.resolve("run/checkpoints").toString(), "--format", "hf", "-o", out.toString()).code()).isZero();

    Map<String, Tensor> original = new java.util.TreeMap<>();
    for (String shard : List.of("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")) {
      original.putAll(ConsolidatedWeights.load(hf.resolve(shard)));
    }
    Map<String, Tensor> exported = ConsolidatedWeights.load(out.resolve("model.safetensors"));
    assertThat(exported.keySet()).containsExactlyInAnyOrderElementsOf(original.keySet());
    for (String name : original.keySet()) {
      assertThat(exported.get(name).sizes().vec().get()).as(name).isEqualTo(original.get(name).sizes().vec().get());
      assertThat(DType.of(exported.get(name).scalar_type())).isEqualTo(DType.of(original.get(name).scalar_type()));
      assertThat(exported.get(name).equal(original.get(name))).as("%s bit for bit", name).isTrue();
    }
    JsonNode a = new ObjectMapper().readTree(hf.resolve("config.json").toFile());
    JsonNode b = new ObjectMapper().readTree(out.resolve("config.json").toFile());
    for (String k : List.of("model_type", "vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
        "num_attention_heads", "num_key_value_heads", "rms_norm_eps", "rope_theta", "tie_word_embeddings", "hidden_act")) {
      assertThat(b.get(k)).as(k).isEqualTo(a.get(k));
    }
    assertThat(b.get("architectures").get(0).asText()).isEqualTo("LlamaForCausalLM");
    // and what was exported loads back as a pretrained model
    Checkpoint c = CheckpointResolver.latest(dir.resolve("run/checkpoints")).orElseThrow();
    assertThat(c.step()).isEqualTo(1);
    assertThat(fineTune(out).steps(1).runDir(dir.resolve("again")).fit().losses()).hasSize(1);
  }

}
