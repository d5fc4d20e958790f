package dev.weft.cli;

import static dev.weft.testing.WeftCli.assertOneLine;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.data.PreferenceShards;
import dev.weft.data.ShardIndex;
import dev.weft.testing.WeftCli;
import dev.weft.train.PreferenceFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code weft data prepare --format preference}: pairs for DPO, and rows it cannot take refused in one line. */
class PreferencePrepareCliTest {
  @TempDir Path dir;

  @Test
  void rowsBecomePairsAndARowWithoutAnAnswerIsRefusedNamingIt() throws Exception {
    Path tok = PreferenceFixture.tokenizer(dir.resolve("tok"));
    Path rows = PreferenceFixture.rows(dir.resolve("rows.jsonl"), 9, 3);
    Path out = dir.resolve("pairs");
    WeftCli.Output o = WeftCli.capture("data", "prepare", "--format", "preference", "--tokenizer", tok.toString(), "--input",
        rows.toString(), "--out", out.toString());
    assertThat(o.code()).as(o.err()).isZero();
    assertThat(o.out()).contains("9 pairs for DPO (data.source: preference:" + out + ")");
    assertThat(PreferenceShards.isPreferenceDirectory(out)).isTrue();
    assertThat(ShardIndex.read(out).documents()).isEqualTo(18);

    Path bad = Files.writeString(dir.resolve("bad.jsonl"), "{\"prompt\": \"what is 1 plus 2 ?\", \"chosen\": \"3\"}\n");
    assertOneLine(WeftCli.run("data", "prepare", "--format", "preference", "--tokenizer", tok.toString(), "--input", bad.toString(),
        "--out", dir.resolve("x").toString()), 2, "--input", "line 1", "'rejected'");
    assertThat(dir.resolve("x").resolve(ShardIndex.FILE)).doesNotExist();
    assertOneLine(WeftCli.run("data", "prepare", "--format", "preference", "--tokenizer", "bytes", "--input", rows.toString(),
        "--out", dir.resolve("y").toString()), 2, "--tokenizer", "chat_template");
  }
}
