package dev.weft.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.error.WeftException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenizerTest {
  @TempDir Path dir;

  @Test
  void byteLevelBpeMergesRoundTripsAndFindsItsSeparator() throws Exception {
    Path f = TinyTokenizers.byteLevelBpe(dir.resolve("tokenizer.json"), List.of("t h", "th e", "Ġ the"));
    try (Tokenizer t = Tokenizer.open(dir.toString())) {
      assertThat(t.vocabSize()).isEqualTo(256 + 3 + 1);
      assertThat(t.separator()).hasValue(259);
      int[] ids = t.encode("the theme ü");
      // ids: "th" 256, "the" 257, "Ġthe" 258; a byte's symbol has the byte's id; 'ü' is bytes 0xC3 0xBC.
      assertThat(ids).containsExactly(257, 258, 'm', 'e', ' ', 0xC3, 0xBC);
      assertThat(t.decode(ids)).isEqualTo("the theme ü");
      assertThat(t.encodeBatch(List.of("the theme ü", "", "the"))).containsExactly(ids, new int[0], new int[] {257});
    }
    assertThat(Files.exists(f)).isTrue();
  }

  @Test
  void sentencePieceConvertedBpeFallsBackToBytes() throws Exception {
    Path f = TinyTokenizers.sentencePieceBpe(dir.resolve("sp.json"), List.of("▁", "t", "h", "e", "▁t", "▁th", "▁the"),
        List.of("▁ t", "▁t h", "▁th e"));
    try (Tokenizer t = Tokenizer.open(f.toString())) {
      assertThat(t.vocabSize()).isEqualTo(3 + 256 + 7);
      assertThat(t.separator()).hasValue(2);
      int the = 3 + 256 + 6;
      int[] ids = t.encode("the the ü");
      assertThat(ids).containsExactly(the, the, 3 + 256, 3 + 0xC3, 3 + 0xBC);
      assertThat(t.decode(ids)).isEqualTo("the the ü");
    }
  }

  @Test
  void bytesAreTheirOwnTokens() {
    try (Tokenizer t = Tokenizer.open("bytes")) {
      assertThat(t.encode("ü東")).hasSize(5);
      assertThat(t.decode(t.encode("ü東"))).isEqualTo("ü東");
    }
  }

  @Test
  void aMissingTokenizerIsOneLineNamingTheOption() {
    assertThatThrownBy(() -> Tokenizer.open(dir.resolve("nope.json").toString()))
        .isInstanceOf(WeftException.class).hasMessageStartingWith("--tokenizer:").hasMessageNotContaining("\n");
  }
}
