package dev.weft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code weft train --resume} of a 4-layer checkpoint with layers=3: exit 2 and one line naming both, before training. */
@Tag("slow")
class ResumeRefusedCliTest {
  @TempDir Path dir;

  @Test
  void aCheckpointOfAnotherModelIsRefusedWithExitTwo() throws Exception {
    Path ck = dir.resolve("ck");
    Trainer.model("gpt").set("model.config.layers", 4).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(8).steps(2).warmup(1).checkpointEvery(2).checkpointDir(ck).runDir(dir.resolve("a")).fit();
    Path spec = dir.resolve("s.yaml");
    Files.writeString(spec, "name: t\nmodel:\n  config: {layers: 3, hidden: 32, heads: 2}\ndata: {seqLen: 16}\n"
        + "train: {steps: 4, globalBatch: 8, warmup: 1}\n");
    String[] refused = weft("train", spec.toString(), "--nproc", "1", "--run-dir", dir.resolve("b").toString(),
        "--resume", ck.resolve("step-000002").toString());
    assertThat(refused[0]).as(refused[1]).isEqualTo("2");
    assertThat(refused[2].lines().count()).as(refused[2]).isEqualTo(1);
    assertThat(refused[2]).contains("checkpoint.resume").contains("layers=4").contains("layers=3").contains("--allow-partial");
    assertThat(refused[1]).doesNotContain("step 3/");
    // the escape hatch, by its flag: blocks 0-2 load, block 3's tensors are named as skipped
    String[] partial = weft("train", spec.toString(), "--nproc", "1", "--run-dir", dir.resolve("c").toString(),
        "--resume", ck.resolve("step-000002").toString(), "--allow-partial");
    assertThat(partial[0]).as(partial[1] + partial[2]).isEqualTo("0");
    assertThat(partial[1]).contains("checkpoint.allowPartial").contains("model/blocks.3.").contains("step 4/4");
  }

  /** Runs weft in this JVM (its workers are processes); returns exit code, stdout, stderr. */
  private static String[] weft(String... args) {
    PrintStream old = System.err, oldOut = System.out;
    ByteArrayOutputStream err = new ByteArrayOutputStream(), out = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = WeftMain.commandLine().execute(args);
    } finally {
      System.setErr(old);
      System.setOut(oldOut);
    }
    return new String[] {String.valueOf(code), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8).strip()};
  }
}
