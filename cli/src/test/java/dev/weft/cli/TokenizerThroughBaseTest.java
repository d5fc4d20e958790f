package dev.weft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.models.hf.HfReference;
import dev.weft.testing.WeftCli;
import dev.weft.train.PreferenceFixture;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42 item 4: {@code weft generate --chat} on a LoRA run's checkpoint (its root, its run directory) and on its PEFT
 * export said "--prompt needs a tokenizer" although the recorded base holds one; now the tokenizer is found through
 * the base (for a run from scratch, through the tokenizer its shards were prepared with), and every export — PEFT,
 * merged, a run from scratch's — carries the tokenizer files and a generation_config.json whose eos_token_id is the
 * tokenizer's end of turn. The tiny Qwen 2 base has no generation_config.json of its own.
 */
class TokenizerThroughBaseTest {
  /** The fixture tokenizer's eos_token, {@code <|im_end|>}. */
  private static final long EOS = 0;
  @TempDir static Path dir;
  static Path run;
  static Path shards;

  @BeforeAll
  static void loraRun() throws Exception {
    Path hf = HfReference.writeFamily("qwen2", dir.resolve("hf"), 41, true);
    Path tok = PreferenceFixture.tokenizer(dir.resolve("tok"));
    for (String f : List.of("tokenizer.json", "tokenizer_config.json")) Files.copy(tok.resolve(f), hf.resolve(f));
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      rows.add("{\"messages\": [{\"role\": \"user\", \"content\": \"what is " + i % 9 + " plus 3 ?\"}, "
          + "{\"role\": \"assistant\", \"content\": \"the answer is " + (i % 9 + 3) + "\"}]}");
    }
    Path input = Files.write(dir.resolve("chat.jsonl"), rows);
    shards = dir.resolve("shards");
    WeftCli.Output prep = WeftCli.capture("data", "prepare", "--format", "chat", "--tokenizer", tok.toString(), "--input",
        input.toString(), "--out", shards.toString());
    assertThat(prep.code()).as(prep.err()).isZero();
    run = dir.resolve("run");
    Trainer.model("qwen2").pretrained(hf).lora(4, 8).data(shards.toString()).seqLen(16).globalBatch(2).steps(2).warmup(0).lr(1e-2)
        .checkpointEvery(2).runDir(run).fit();
  }

  private static void chatWorks(Path model) {
    WeftCli.Output o = WeftCli.capture("generate", model.toString(), "--chat", "--prompt", "what is 3 plus 4 ?", "--max-new-tokens", "3");
    assertThat(o.code()).as("%s: %s", model, o.err()).isZero();
  }

  @Test
  void aCheckpointAndItsRunFindTheTokenizerOfTheirBase() {
    chatWorks(run.resolve("checkpoints"));
    chatWorks(run);
    chatWorks(run.resolve("checkpoints/step-000002"));
    WeftCli.Output prep = WeftCli.capture("data", "prepare", "--format", "chat", "--tokenizer", run.toString(), "--input",
        dir.resolve("chat.jsonl").toString(), "--out", dir.resolve("again").toString());
    assertThat(prep.code()).as("data prepare --tokenizer RUN: %s", prep.err()).isZero();
  }

  @Test
  void generateAndEvalOnTheCheckpointItsPeftExportAndItsMergedExportNeedNoTokenizer() throws Exception {
    Path peft = dir.resolve("peft"), merged = dir.resolve("merged");
    assertThat(WeftCli.run("checkpoint", "export", run.toString(), "--format", "peft", "-o", peft.toString()).code()).isZero();
    assertThat(WeftCli.run("checkpoint", "export", run.toString(), "--format", "hf", "-o", merged.toString()).code()).isZero();
    for (Path export : List.of(peft, merged)) {
      assertThat(export.resolve("tokenizer.json")).isRegularFile();
      assertThat(export.resolve("tokenizer_config.json")).isRegularFile();
      assertThat(eosOf(export.resolve("generation_config.json"))).as("%s", export).containsExactly(EOS);
    }
    double checkpointLoss = evalLoss(run.resolve("checkpoints"));
    for (Path model : List.of(run.resolve("checkpoints"), peft, merged)) chatWorks(model);
    // the adapters trained two steps at lr 1e-2: the three are one model, the merged one within fp32 rounding
    assertThat(evalLoss(peft)).isCloseTo(checkpointLoss, org.assertj.core.data.Offset.offset(1e-5));
    assertThat(evalLoss(merged)).isCloseTo(checkpointLoss, org.assertj.core.data.Offset.offset(1e-5));
  }

  @Test
  void aRunFromScratchFindsItsTokenizerThroughItsShardsAndItsExportCarriesIt() throws Exception {
    Path scratch = dir.resolve("scratch");
    Trainer.model("qwen2").data(shards.toString()).seqLen(16).globalBatch(2).steps(1).checkpointEvery(1).runDir(scratch).fit();
    chatWorks(scratch);
    Path out = dir.resolve("scratch-hf");
    WeftCli.Output export = WeftCli.capture("checkpoint", "export", scratch.toString(), "--format", "hf", "-o", out.toString());
    assertThat(export.code()).as(export.err()).isZero();
    assertThat(out.resolve("tokenizer.json")).isRegularFile();
    assertThat(eosOf(out.resolve("config.json"))).containsExactly(EOS);
    assertThat(eosOf(out.resolve("generation_config.json"))).containsExactly(EOS);
    chatWorks(out);
  }

  private static List<Long> eosOf(Path json) throws Exception {
    JsonNode eos = new ObjectMapper().readTree(json.toFile()).path("eos_token_id");
    List<Long> ids = new ArrayList<>();
    if (eos.isArray()) eos.forEach(e -> ids.add(e.asLong())); else if (eos.isIntegralNumber()) ids.add(eos.asLong());
    return ids;
  }

  private static double evalLoss(Path model) throws Exception {
    Path out = Files.createTempFile(dir, "eval", ".json");
    WeftCli.Output o = WeftCli.capture("eval", model.toString(), "--data", shards.toString(), "--seq-len", "16", "-o", out.toString());
    assertThat(o.code()).as("%s: %s", model, o.err()).isZero();
    return new ObjectMapper().readTree(out.toFile()).path("loss").asDouble();
  }

  @Test
  void aPeftExportCarriesTheTokenizerFiles() {
    Path out = dir.resolve("adapter");
    assertThat(WeftCli.run("checkpoint", "export", run.resolve("checkpoints").toString(), "--format", "peft", "-o", out.toString()).code())
        .isZero();
    assertThat(out.resolve("tokenizer.json")).isRegularFile();
    assertThat(out.resolve("tokenizer_config.json")).isRegularFile();
    chatWorks(out);
  }
}
