package dev.weft.tracking;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.cli.WeftMain;
import dev.weft.data.ShardWriter;
import dev.weft.models.llama.TinyHfLlama;
import dev.weft.testing.WeftCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** lineage.json of real runs: what an export names, and the diff of two runs that differ in one data shard. */
class LineageTest {
  @TempDir Path dir;

  @Test
  void anExportNamesItsBaseModelDataShardsAndRunAndOneChangedShardShowsInTheDiff() throws Exception {
    Path hf = TinyHfLlama.write(dir.resolve("hf"), 11, false, false);
    Path dataA = shards(dir.resolve("data-a"), 7, 7), dataB = shards(dir.resolve("data-b"), 7, 8); // shard 1 differs
    Path runA = dir.resolve("run-a"), runB = dir.resolve("run-b");
    run(hf, dataA, runA);
    run(hf, dataB, runB);

    JsonNode a = Lineage.read(runA);
    assertThat(a.path("run").path("status").asText()).isEqualTo("completed");
    assertThat(a.path("spec_sha256").asText()).hasSize(64);
    boolean recorded = Lineage.class.getResource("/dev/weft/build.properties") != null; // built in a git checkout
    assertThat(a.path("weft").path("commit").asText()).matches(recorded ? "[0-9a-f]{40}(-dirty)?" : "unknown");
    assertThat(a.path("base_model").path("files").get(0).path("sha256").asText()).isEqualTo(sha256(hf.resolve("model.safetensors")));
    assertThat(a.path("data").get(0).path("files")).hasSize(3); // index.json and two shards
    assertThat(a.path("samples").path("consumed").asLong()).isEqualTo(4 * 4);
    assertThat(a.path("samples").path("epoch_samples").asLong()).isPositive();
    assertThat(a.path("checkpoints").path("written").toString()).isEqualTo("[2,4]");
    assertThat(a.path("final_metrics").path("final_loss").asDouble()).isPositive();

    Path export = dir.resolve("export");
    int code = WeftMain.commandLine().execute("checkpoint", "export", runA.resolve("checkpoints").toString(), "--format", "hf",
        "-o", export.toString());
    assertThat(code).isZero();
    String shown = stdout("lineage", export.toString());
    assertThat(shown).contains("export: hf of step 4")
        .contains("base model: " + hf.toAbsolutePath().normalize() + " sha256 " + a.path("base_model").path("sha256").asText())
        .contains("run: weft-run in " + runA.toAbsolutePath().normalize() + " (completed)")
        .contains(dataA.resolve("index.json").toAbsolutePath().normalize() + " sha256 " + sha256(dataA.resolve("index.json")))
        .containsPattern("final: loss \\d+\\.\\d{4}, steps 4");
    for (JsonNode f : a.path("data").get(0).path("files")) assertThat(shown).contains(f.path("path").asText() + " sha256 " + f.path("sha256").asText());
    assertThat(Lineage.read(runA).path("exports").get(0).path("dir").asText()).isEqualTo(export.toAbsolutePath().normalize().toString());

    Map<String, String[]> diff = Lineage.diff(Lineage.read(runA), Lineage.read(runB));
    assertThat(diff).containsKey("data[0].files[2].sha256").doesNotContainKey("data[0].files[1].sha256")
        .doesNotContainKey("base_model.sha256").containsKey("spec.data.source");
    String printed = stdout("lineage", "--diff", runA.toString(), runB.toString());
    assertThat(printed).contains("data[0].files[2].sha256: " + sha256(dataA.resolve("shard-00001.npy")) + " -> "
        + sha256(dataB.resolve("shard-00001.npy")));
  }

  @Test
  void anEmptyListAndAMissingFieldDoNotDiffer() throws Exception {
    var m = dev.weft.metrics.MetricsJson.MAPPER;
    Map<String, String[]> d = Lineage.diff(m.readTree("{\"tokenizer\": [], \"run\": {\"name\": \"a\"}}"),
        m.readTree("{\"run\": {\"name\": \"b\"}, \"exports\": []}"));
    assertThat(d).containsOnlyKeys("run.name");
    assertThat(Lineage.diff(m.readTree("{\"tokenizer\": []}"), m.readTree("{\"tokenizer\": [{\"path\": \"t.json\"}]}")))
        .containsOnlyKeys("tokenizer[0].path");
  }

  @Test
  void mistakesAreOneLineNamingTheArgument() {
    WeftCli.assertOneLine(WeftCli.run("lineage", dir.resolve("nothing").toString()), 2, "DIR", "lineage.json");
    WeftCli.assertOneLine(WeftCli.run("lineage", "--diff", dir.toString()), 2, "--diff", "A and B");
    WeftCli.assertOneLine(WeftCli.run("lineage", dir.toString(), dir.toString()), 2, "--diff A B");
  }

  private static void run(Path hf, Path data, Path runDir) {
    Trainer.model("llama").pretrained(hf).data(data.toString()).seqLen(16).globalBatch(4).steps(4).warmup(1)
        .checkpointEvery(2).runDir(runDir).fit();
  }

  /** Two shards of 600 tokens; the second's tokens drawn from {@code secondSeed}. */
  private static Path shards(Path dir, long firstSeed, long secondSeed) {
    try (ShardWriter w = new ShardWriter(dir, TinyHfLlama.VOCAB, "bytes", -1, 600)) {
      w.append(tokens(firstSeed, 600));
      w.append(tokens(secondSeed, 600));
      w.endDocument(false);
      w.finish();
    }
    return dir;
  }

  private static int[] tokens(long seed, int n) {
    Random r = new Random(seed);
    int[] ids = new int[n];
    for (int i = 0; i < n; i++) ids[i] = r.nextInt(TinyHfLlama.VOCAB);
    return ids;
  }

  private static String sha256(Path f) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f)));
  }

  private static synchronized String stdout(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      assertThat(WeftMain.commandLine().execute(args)).isZero();
    } finally {
      System.setOut(old);
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
