package dev.weft.data.prepare;

import dev.weft.spec.SpecException;
import dev.weft.tokenizer.HfTokenizer;
import dev.weft.tokenizer.Tokenizer;
import dev.weft.tokenizer.chat.ChatEncoder;
import dev.weft.tokenizer.chat.ChatTemplate;
import dev.weft.tokenizer.chat.ChatTemplateException;
import java.nio.file.Path;
import java.util.function.LongConsumer;

/**
 * Chat rows → each conversation rendered with the tokenizer's chat template and encoded, its ids and target flags
 * appended to flagged shards (through the length policy), one document per conversation.
 */
final class ChatPrepare {
  private final ChatEncoder encoder;
  private final ChatEncoder.TrainOn trainOn;
  private final Truncator out;

  ChatPrepare(Tokenizer tokenizer, ChatEncoder.TrainOn trainOn, Truncator out) {
    if (!(tokenizer instanceof HfTokenizer hf)) {
      throw new SpecException("--tokenizer", "--format chat needs a Hugging Face tokenizer whose tokenizer_config.json has a "
          + "chat_template; '" + tokenizer.describe() + "' has none");
    }
    try {
      this.encoder = new ChatEncoder(hf, ChatTemplate.load(hf.file()), trainOn);
    } catch (ChatTemplateException e) {
      throw new SpecException("--tokenizer", e.getMessage());
    }
    this.trainOn = trainOn;
    this.out = out;
  }

  /** How targets are found, for prepare to say. */
  String method() { return encoder.method(); }

  void read(Path file, String field, boolean replaceInvalid, LongConsumer bytesRead) {
    Rows.read(file, replaceInvalid, bytesRead, (where, row) -> {
      Conversations.Conversation c = Conversations.of(row, field, where);
      ChatEncoder.Encoded e;
      try {
        e = encoder.encode(c.messages(), c.extra());
      } catch (ChatTemplateException x) {
        throw new SpecException(x.conversation() ? "--input" : "--tokenizer", (x.conversation() ? where + ": " : "") + x.getMessage());
      }
      out.append(e.ids(), e.targets());
      out.endDocument(trainOn == ChatEncoder.TrainOn.ALL);
    });
  }
}
