package dev.weft.data.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.spec.SpecException;
import dev.weft.tokenizer.Tokenizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** sdk-api alone has no Parquet reader (DuckDB comes with weft-cli): a .parquet input is one line naming what to add. */
class ParquetWithoutCliTest {
  @TempDir Path dir;

  @Test
  void aParquetInputNamesWeftCli() throws Exception {
    assertThat(ParquetReader.find()).isEmpty(); // this module's tests run without weft-cli
    Path in = Files.write(dir.resolve("rows.parquet"), new byte[] {'P', 'A', 'R', '1'});
    assertThatThrownBy(() -> Prepare.run(new Prepare.Request(Tokenizer.open("bytes"), List.of(in), dir.resolve("out"), "auto", "text",
        1 << 20, 0), (done, total, tokens) -> {}))
        .isInstanceOf(SpecException.class).hasMessageContaining("rows.parquet").hasMessageContaining("weft-cli")
        .hasMessageContaining("JSONL");
  }
}
