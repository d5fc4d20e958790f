package dev.weft.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.Trainer;
import dev.weft.checkpoint.CheckpointKey;
import dev.weft.spec.SpecException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 31: the checkpoint key is never taken from the spec nor echoed; nothing intact to resume is one line before any rank starts. */
class CheckpointMistakesTest {
  @TempDir Path dir;

  private record Run(int code, String err) {}

  private static Run weft(String... args) {
    PrintStream oldErr = System.err, oldOut = System.out;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    try {
      return new Run(WeftMain.commandLine().execute(args), err.toString(StandardCharsets.UTF_8).strip());
    } finally {
      System.setErr(oldErr);
      System.setOut(oldOut);
    }
  }

  private Path spec() throws Exception {
    Path spec = dir.resolve("s.yaml");
    Files.writeString(spec, "name: t\nparallel:\n  dp: 1\ntrain:\n  globalBatch: 4\n  steps: 2\n");
    return spec;
  }

  @Test
  void aKeyWrittenIntoTheSpecIsRefusedAndNeverEchoed() throws Exception {
    String secret = "s3cr3t-hmac-key-0f9e8d7c6b5a";
    Run r = weft("train", spec().toString(), "--set", "checkpoint.key=" + secret, "--run-dir", dir.resolve("run").toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err().lines().count()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).startsWith("weft: checkpoint.key: ").contains(CheckpointKey.ENV).doesNotContain(secret);
    assertThat(dir.resolve("run/spec.yaml")).doesNotExist();
  }

  @Test
  void nothingIntactToResumeIsOneLineBeforeAnyRankStarts() throws Exception {
    Path ck = Files.createDirectories(dir.resolve("ck/step-000004"));
    Files.writeString(ck.resolve("manifest.json"), "{\"step\": 4}");
    Run r = weft("train", spec().toString(), "--set", "checkpoint.dir=" + dir.resolve("ck"), "--resume", "latest",
        "--run-dir", dir.resolve("run").toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err().lines().count()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).startsWith("weft: checkpoint.resume: latest: none of the 1 checkpoint(s) under ")
        .contains("step-000004 (").contains("has no manifest_sha256 seal");
  }

  @Test
  void aRequiredKeyThatIsNotSetStopsTheRun() {
    assumeTrue(System.getenv(CheckpointKey.ENV) == null, CheckpointKey.ENV + " is set in this environment");
    assertThatThrownBy(() -> Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 16)
        .set("model.config.heads", 2).seqLen(8).globalBatch(4).steps(2).checkpointEvery(1).checkpointDir(dir.resolve("ck"))
        .set("checkpoint.key", "required").runDir(dir.resolve("run")).fit())
        .isInstanceOf(SpecException.class).hasMessageStartingWith("checkpoint.key: is 'required' but " + CheckpointKey.ENV + " is not set");
  }
}
