package dev.weft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.models.hf.HfReference;
import dev.weft.testing.WeftCli;
import dev.weft.train.PreferenceFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42 item 4: {@code weft generate --chat} on a LoRA run's checkpoint (its root, its run directory) and on its PEFT
 * export said "--prompt needs a tokenizer" although the recorded base holds one; now the tokenizer is found through
 * the base, and the PEFT export carries the base's tokenizer files.
 */
class TokenizerThroughBaseTest {
  @TempDir static Path dir;
  static Path run;

  @BeforeAll
  static void loraRun() throws Exception {
    Path hf = HfReference.writeFamily("qwen2", dir.resolve("hf"), 41, true);
    Path tok = PreferenceFixture.tokenizer(dir.resolve("tok"));
    for (String f : List.of("tokenizer.json", "tokenizer_config.json")) Files.copy(tok.resolve(f), hf.resolve(f));
    run = dir.resolve("run");
    Trainer.model("qwen2").pretrained(hf).lora(4, 8).seqLen(16).globalBatch(2).steps(1).checkpointEvery(1).runDir(run).fit();
  }

  private static void chatWorks(Path model) {
    WeftCli.Output o = WeftCli.capture("generate", model.toString(), "--chat", "--prompt", "what is 3 plus 4 ?", "--max-new-tokens", "3");
    assertThat(o.code()).as("%s: %s", model, o.err()).isZero();
  }

  @Test
  void aCheckpointAndItsRunFindTheTokenizerOfTheirBase() {
    chatWorks(run.resolve("checkpoints"));
    chatWorks(run);
    chatWorks(run.resolve("checkpoints/step-000001"));
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
