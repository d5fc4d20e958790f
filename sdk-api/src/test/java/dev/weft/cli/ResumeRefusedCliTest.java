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
    PrintStream old = System.err, oldOut = System.out;
    ByteArrayOutputStream err = new ByteArrayOutputStream(), out = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = WeftMain.commandLine().execute("train", spec.toString(), "--nproc", "1", "--run-dir", dir.resolve("b").toString(),
          "--resume", ck.resolve("step-000002").toString());
    } finally {
      System.setErr(old);
      System.setOut(oldOut);
    }
    String msg = err.toString(StandardCharsets.UTF_8).strip();
    assertThat(code).as(out.toString(StandardCharsets.UTF_8)).isEqualTo(2);
    assertThat(msg.lines().count()).as(msg).isEqualTo(1);
    assertThat(msg).contains("checkpoint.resume").contains("layers=4").contains("layers=3").contains("--allow-partial");
    assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("step 1/");
  }
}
