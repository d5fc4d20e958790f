package dev.weft.models.lora;

import dev.weft.testing.WeftCli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.Trainer;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.models.llama.TinyHfLlama;
import dev.weft.data.Npy;
import dev.weft.data.TokenWidth;
import java.util.Random;
import dev.weft.models.hf.HfReference;
import dev.weft.testing.PythonRef;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weft checkpoint export} of a LoRA run: the PEFT directory has peft's file, field and tensor
 * names (read from peft's sources); the merged directory is the base bit for bit but for the targets,
 * which are W + scale · B · A from the PEFT export (NumPy, float64); and the adapter loads back.
 */
class LoraExportTest {
  @TempDir Path dir;

  @Test
  void peftAndMergedExportsAgreeWithPeftAndNumpy() throws Exception {
    PythonRef.require("numpy", "safetensors");
    Path hf = dir.resolve("hf"), ck = dir.resolve("ck"), peft = dir.resolve("peft"), merged = dir.resolve("merged");
    Map<String, Tensor> base = ConsolidatedWeights.load(TinyHfLlama.write(hf, 21, false, false).resolve("model.safetensors"));
    LoraTrainingTest.loraTune(hf).tensorParallel(2).steps(2).checkpointEvery(2).checkpointDir(ck).runDir(dir.resolve("run")).fit();
    String step = ck.resolve("step-000002").toString();
    assertThat(WeftCli.capture("checkpoint", "export", step, "--format", "peft", "-o", peft.toString()).code()).isZero();
    assertThat(WeftCli.capture("checkpoint", "export", step, "--format", "hf", "-o", merged.toString()).code()).isZero();

    JsonNode ref = reference(hf, peft, merged);
    assertThat(ref.get("unknown_fields")).as("fields LoraConfig does not have").isEmpty();
    JsonNode c = ref.get("config");
    assertThat(c.get("peft_type").asText()).isEqualTo("LORA");
    assertThat(c.get("task_type").asText()).isEqualTo("CAUSAL_LM");
    assertThat(c.get("r").asInt()).isEqualTo(4);
    assertThat(c.get("lora_alpha").asDouble()).isEqualTo(8);
    assertThat(c.get("base_model_name_or_path").asText()).isEqualTo(hf.toString());
    assertThat(c.get("bias").asText()).isEqualTo("none");
    assertThat(c.get("fan_in_fan_out").asBoolean()).isFalse();
    assertThat(c.get("use_rslora").asBoolean()).isFalse();
    assertThat(new ObjectMapper().convertValue(c.get("target_modules"), List.class)).containsExactlyInAnyOrder(
        "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj");
    assertThat(ref.get("bad_names")).isEmpty();
    assertThat(ref.get("adapters").asInt()).isEqualTo(2 * 7 * TinyHfLlama.LAYERS);
    assertThat(ref.get("targets").asInt()).isEqualTo(7 * TinyHfLlama.LAYERS);
    assertThat(ref.get("differing")).as("non-target tensors not bit-identical").isEmpty();
    assertThat(ref.get("identical").asInt()).isEqualTo(base.size() - 7 * TinyHfLlama.LAYERS);
    assertThat(ref.get("merged_only")).isEmpty();
    assertThat(ref.get("max_target_error").asDouble()).isLessThanOrEqualTo(1e-6).isGreaterThan(0);
    assertThat(merged.resolve("config.json")).hasSameTextualContentAs(hf.resolve("config.json"));

    // the adapter loaded over the base computes what the merged model computes
    double viaAdapter = still(LoraTrainingTest.loraTune(hf).set("train.lora.adapter", peft.toString())).runDir(dir.resolve("a")).fit()
        .losses().get(0);
    double viaMerged = still(Trainer.model("llama").pretrained(merged).seqLen(16).globalBatch(8).microBatches(2).seed(5))
        .runDir(dir.resolve("m")).fit().losses().get(0);
    assertThat(Math.abs(viaAdapter - viaMerged) / viaMerged).as("%s vs %s", viaAdapter, viaMerged).isLessThanOrEqualTo(1e-5);
    double fresh = still(LoraTrainingTest.loraTune(hf)).runDir(dir.resolve("f")).fit().losses().get(0);
    assertThat(Math.abs(fresh - viaMerged)).as("the trained adapters change the loss").isGreaterThan(1e-4);

    // weft eval: the PEFT directory (over the base it names), the checkpoint and the merged directory agree
    Path tokens = dir.resolve("t.npy");
    Npy.write(tokens, TokenWidth.UINT16, new Random(3).ints(16 * 5 + 3, 0, TinyHfLlama.VOCAB).toArray());
    double peftLoss = eval(peft, tokens), ckptLoss = eval(Path.of(step), tokens), mergedLoss = eval(merged, tokens);
    assertThat(Math.abs(peftLoss - mergedLoss) / mergedLoss).as("%s vs %s", peftLoss, mergedLoss).isLessThanOrEqualTo(1e-5);
    assertThat(Math.abs(ckptLoss - mergedLoss) / mergedLoss).as("%s vs %s", ckptLoss, mergedLoss).isLessThanOrEqualTo(1e-5);
  }

  private double eval(Path model, Path tokens) throws Exception {
    Path out = dir.resolve("eval-" + model.getFileName() + ".json");
    WeftCli.Output r = WeftCli.capture("eval", model.toString(), "--data", tokens.toString(), "--seq-len", "16", "-o", out.toString());
    assertThat(r.code()).as(r.out()).isZero();
    return new ObjectMapper().readTree(out.toFile()).get("loss").asDouble();
  }

  private static Trainer still(Trainer t) {
    return t.steps(1).lr(1e-30).minLr(0).warmup(0);
  }

  private JsonNode reference(Path hf, Path peft, Path merged) throws Exception {
    Path script = dir.resolve("lora_reference.py");
    try (InputStream in = LoraExportTest.class.getResourceAsStream("lora_reference.py")) {
      Files.write(script, in.readAllBytes());
    }
    Process p = new ProcessBuilder(PythonRef.command(script.toString(), hf.toString(), peft.toString(), merged.toString()))
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("lora_reference.py exit").isZero();
    return new ObjectMapper().readTree(out);
  }
}
