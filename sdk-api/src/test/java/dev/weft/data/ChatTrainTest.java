package dev.weft.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.spec.DataSpec;
import dev.weft.spec.SpecException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code data.chat.train} on real chat shards: every assistant turn as prepared, the last one only, or every token. */
class ChatTrainTest {
  @TempDir Path dir;

  /** Conversations as runs of prompt (0) and assistant (1) tokens; ids count up from 1. */
  private static final int[][] FLAGS = {
      {0, 0, 1, 1, 0, 0, 0, 1, 1, 1},     // two assistant turns: the last is tokens 7-9
      {0, 1, 1, 1, 0},                    // one turn, a newline after its end of turn
      {0, 0, 0},                          // no assistant turn at all
      {1, 1, 0, 1, 0, 0, 1, 1, 1, 1, 0}}; // the assistant speaks first; the last turn is 6-9

  private Path shards() {
    try (ShardWriter w = new ShardWriter(dir, 100, "test", -1, 1 << 20, true)) {
      int id = 1;
      for (int[] conversation : FLAGS) {
        int[] ids = new int[conversation.length];
        boolean[] targets = new boolean[conversation.length];
        for (int k = 0; k < ids.length; k++) {
          ids[k] = id++;
          targets[k] = conversation[k] == 1;
        }
        w.append(ids, targets);
        w.endDocument(false);
      }
      w.finish();
    }
    return dir;
  }

  /** Each sample's target flags over its conversation's tokens (one conversation per sample, padding left out). */
  private static List<String> targets(Path shards, String train) {
    TokenSource s = DataSources.open(new DataSpec(shards.toString(), 12, null, 0, "false", 0, DataSpec.SPLIT,
        new DataSpec.Chat(train), ""), 0).train();
    List<String> out = new ArrayList<>();
    for (long i = 0; i < s.distinctSamples(); i++) {
      int[] ids = new int[13], doc = new int[13];
      boolean[] t = new boolean[13];
      s.sample(i, ids, t, doc);
      int n = 0;
      while (n < 13 && ids[n] != 0 && (n == 0 || doc[n] == doc[0])) n++;
      int[] flags = new int[n];
      for (int k = 0; k < n; k++) flags[k] = t[k] ? 1 : 0;
      out.add(ids[0] + ":" + Arrays.toString(flags));
    }
    out.sort(null);
    return out;
  }

  @Test
  void lastKeepsEachConversationsLastAssistantTurnAllEveryTokenAssistantWhatPrepareFlagged() {
    Path s = shards();
    assertThat(targets(s, "assistant")).containsExactlyInAnyOrderElementsOf(targets(s, ""))
        .contains("1:" + Arrays.toString(FLAGS[0]), "11:" + Arrays.toString(FLAGS[1]), "19:" + Arrays.toString(FLAGS[3]));
    assertThat(targets(s, "last")).contains("1:[0, 0, 0, 0, 0, 0, 0, 1, 1, 1]", "11:[0, 1, 1, 1, 0]",
        "19:[0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0]");
    assertThat(targets(s, "all")).contains("1:[1, 1, 1, 1, 1, 1, 1, 1, 1, 1]", "16:[1, 1, 1]");
  }

  @Test
  void theSpecRefusesOtherChoicesAndPlainShardsInOneLine() {
    assertThat(Trainer.model("gpt").set("data.chat.train", "last").toSpec().data().chat().train()).isEqualTo("last");
    assertThat(Trainer.model("gpt").toSpec().data().chat()).isEqualTo(DataSpec.Chat.AS_PREPARED);
    assertThatThrownBy(() -> Trainer.model("gpt").set("data.chat.train", "completion").toSpec())
        .isInstanceOf(SpecException.class).hasMessageContaining("data.chat.train").hasMessageContaining("'completion'")
        .hasMessageNotContaining("\n");
    try (ShardWriter w = new ShardWriter(dir, 100, "test", -1, 1 << 20, false)) {
      w.append(new int[] {1, 2, 3});
      w.endDocument(false);
      w.finish();
    }
    assertThatThrownBy(() -> DataSources.open(new DataSpec(dir.toString(), 4, null, 0, "auto", 0, DataSpec.SPLIT,
        new DataSpec.Chat("last"), ""), 0)).isInstanceOf(SpecException.class).hasMessageContaining("no target flags");
  }
}
