package dev.weft.data.prepare;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.data.PreferenceShards;
import dev.weft.spec.SpecException;
import dev.weft.tokenizer.HfTokenizer;
import dev.weft.tokenizer.Tokenizer;
import dev.weft.tokenizer.chat.ChatEncoder;
import dev.weft.tokenizer.chat.ChatTemplate;
import dev.weft.tokenizer.chat.ChatTemplateException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Preference rows → pairs of conversations rendered with the tokenizer's chat template. A row holds a {@code prompt}
 * (a string: a user turn, or a list of messages) with a {@code chosen} and a {@code rejected} answer (strings: an
 * assistant turn, or lists of messages), or only {@code chosen} and {@code rejected} as whole conversations (TRL's
 * implicit prompt). The targets of each answer are its assistant tokens after the longest prefix of ids the two
 * conversations share: what the pair disagrees on, as TRL scores only the completions (shared tokens have the same
 * log-probability in both answers, so leaving them out changes no DPO loss).
 */
final class PreferencePrepare {
  private final ChatEncoder encoder;
  private final PreferenceShards.Writer out;

  PreferencePrepare(Tokenizer tokenizer, PreferenceShards.Writer out) {
    if (!(tokenizer instanceof HfTokenizer hf)) {
      throw new SpecException("--tokenizer", "--format preference needs a Hugging Face tokenizer whose tokenizer_config.json has a "
          + "chat_template; '" + tokenizer.describe() + "' has none");
    }
    try {
      this.encoder = new ChatEncoder(hf, ChatTemplate.load(hf.file()), ChatEncoder.TrainOn.ASSISTANT);
    } catch (ChatTemplateException e) {
      throw new SpecException("--tokenizer", e.getMessage());
    }
    this.out = out;
  }

  void read(Path file, boolean replaceInvalid, LongConsumer bytesRead) {
    Rows.read(file, replaceInvalid, bytesRead, (where, row) -> {
      ChatEncoder.Encoded chosen = encode(conversation(row, "chosen", where), where);
      ChatEncoder.Encoded rejected = encode(conversation(row, "rejected", where), where);
      int shared = sharedPrefix(chosen.ids(), rejected.ids());
      out.pair(chosen.ids(), after(chosen.targets(), shared), rejected.ids(), after(rejected.targets(), shared));
    });
  }

  /** The prompt's messages followed by the answer {@code side}'s. */
  static List<Object> conversation(JsonNode row, String side, String where) {
    JsonNode answer = row.get(side);
    if (answer == null || answer.isNull()) {
      throw new SpecException("--input", where + " has no '" + side + "'; preference rows hold prompt, chosen and rejected "
          + "(or chosen and rejected conversations)");
    }
    List<Object> messages = new ArrayList<>();
    JsonNode prompt = row.get("prompt");
    if (prompt != null && !prompt.isNull()) Conversations.addTurn(messages, prompt, "user", where);
    else if (!answer.isArray()) {
      throw new SpecException("--input", where + " has no 'prompt' and its '" + side + "' is not a list of messages; give a prompt "
          + "or whole conversations");
    }
    Conversations.addTurn(messages, answer, "assistant", where);
    return messages;
  }

  private ChatEncoder.Encoded encode(List<Object> messages, String where) {
    try {
      return encoder.encode(messages, java.util.Map.of());
    } catch (ChatTemplateException x) {
      throw new SpecException(x.conversation() ? "--input" : "--tokenizer", (x.conversation() ? where + ": " : "") + x.getMessage());
    }
  }

  /** How many leading ids {@code a} and {@code b} share. */
  static int sharedPrefix(int[] a, int[] b) {
    int n = 0;
    while (n < a.length && n < b.length && a[n] == b[n]) n++;
    return n;
  }

  private static boolean[] after(boolean[] targets, int from) {
    boolean[] out = targets.clone();
    java.util.Arrays.fill(out, 0, Math.min(from, out.length), false);
    return out;
  }
}
