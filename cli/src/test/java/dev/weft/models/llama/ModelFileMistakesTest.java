package dev.weft.models.llama;

import static dev.weft.testing.WeftCli.assertOneLine;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.data.Npy;
import dev.weft.data.TokenWidth;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.weft.testing.WeftCli;
import dev.weft.testing.WeftCli.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 31, items 7 and 8: eval and generate over model directories, and config.json sizes that cannot be. */
class ModelFileMistakesTest {
  @TempDir Path dir;

  private static Run weft(String... args) { return WeftCli.run(args); }

  /** Item 8: eval checked the model against the default data source (arithmetic, 256 tokens) instead of --data. */
  @Test
  void evalOfAModelWithASmallVocabularyReadsTheGivenData() throws Exception {
    Path model = TinyHfLlama.write(dir.resolve("hf"), 7, false, false, 97);
    Path tokens = dir.resolve("tokens.npy");
    int[] ids = new int[200];
    for (int i = 0; i < ids.length; i++) ids[i] = (i * 7) % 97;
    Npy.write(tokens, TokenWidth.UINT16, ids);
    Run r = weft("eval", model.toString(), "--data", tokens.toString(), "--seq-len", "32", "-o", dir.resolve("e.json").toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(dir.resolve("e.json")).exists();
    // the same model generates too (no data at all)
    assertThat(weft("generate", model.toString(), "--prompt-ids", "1,2,3", "--max-new-tokens", "2").code()).isZero();
  }

  @Test
  void promptIdsOutsideTheVocabularyAndANanTemperatureAreOneLine() throws Exception {
    Path model = TinyHfLlama.write(dir.resolve("hf"), 7, false, false);
    assertOneLine(weft("generate", model.toString(), "--prompt-ids", "1,2,300", "--max-new-tokens", "2"), 2,
        "--prompt-ids", "token 300 (position 2)", "vocabulary of 256");
    assertOneLine(weft("generate", model.toString(), "--prompt-ids", "1,-1", "--max-new-tokens", "2"), 2, "--prompt-ids");
    assertOneLine(weft("generate", model.toString(), "--prompt-ids", "1,2", "--max-new-tokens", "2", "--temperature", "NaN"), 2,
        "--temperature", "NaN");
    assertOneLine(weft("generate", model.toString(), "--prompt-ids", "1,2", "--max-new-tokens", "2", "--temperature", "Infinity"),
        2, "--temperature");
  }

  /** A config.json that says n_layer 1000000 took 17 GB before anything was checked: refused from the plan's estimate. */
  @Test
  void aModelTooBigForThisMachineIsRefusedBeforeAllocating() throws Exception {
    Path hf = gpt2("1000000", "768", "50257");
    assertOneLine(weft("eval", hf.toString(), "--data", tokens().toString(), "--seq-len", "4"), 2, "model.pretrained",
        "needs about", "but this machine has");
    Path spec = Files.writeString(dir.resolve("s.yaml"), "name: big\n");
    assertOneLine(weft("train", spec.toString(), "--set", "model.pretrained=" + hf, "--set", "train.steps=1", "--run-dir", dir.resolve("run").toString()),
        2, "model.pretrained: the 1 rank(s) on this machine need about");
  }

  /** config.json integers were read with asInt(): 1e12 became -727379968. */
  @Test
  void configIntegersOutOfRangeAreRefusedNotWrapped() throws Exception {
    Path tokens = tokens();
    Run r = weft("eval", gpt2("2", "64", "1000000000000").toString(), "--data", tokens.toString(), "--seq-len", "4");
    assertOneLine(r, 2, "vocab_size", "1000000000000", "out of range");
    assertThat(r.err()).doesNotContain("-727379968");

    Path llama = TinyHfLlama.write(dir.resolve("llama"), 7, false, false);
    Files.writeString(llama.resolve("config.json"), Files.readString(llama.resolve("config.json"))
        .replace("\"vocab_size\" : 256", "\"vocab_size\" : 1e12"));
    assertOneLine(weft("eval", llama.toString(), "--data", tokens.toString(), "--seq-len", "4"), 2, "model.config.vocab_size",
        "out of range");
  }

  /** A GPT-2 directory with only its config.json: sizes are checked before any weight is read. */
  private Path gpt2(String layers, String hidden, String vocab) throws Exception {
    Path hf = Files.createDirectories(dir.resolve("gpt2"));
    Files.writeString(hf.resolve("config.json"), "{\"model_type\": \"gpt2\", \"n_layer\": " + layers + ", \"n_embd\": " + hidden
        + ", \"n_head\": 4, \"vocab_size\": " + vocab + ", \"n_positions\": 1024}");
    return hf;
  }

  private Path tokens() {
    Path tokens = dir.resolve("t.npy");
    Npy.write(tokens, TokenWidth.UINT16, new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
    return tokens;
  }
}
