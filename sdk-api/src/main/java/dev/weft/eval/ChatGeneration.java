package dev.weft.eval;

import dev.weft.models.CausalLm;
import dev.weft.tokenizer.HfTokenizer;
import dev.weft.tokenizer.chat.ChatTemplate;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

/**
 * The assistant's next turn of a conversation: the conversation rendered with the tokenizer's chat template and its
 * generation prompt ({@code apply_chat_template(messages, add_generation_prompt=True)}), generated until a stop token
 * (the model's end-of-sequence ids and the template's end-of-turn tokens, such as {@code <|im_end|>} or
 * {@code <|eot_id|>}), the reply decoded without its stop token.
 */
public final class ChatGeneration {
  /** The reply's ids (the stop token, when one ended it, last) and its text (without the stop token). */
  public record Reply(long[] ids, String text, boolean stopped) {}

  private ChatGeneration() {}

  /** The reply to {@code messages} (role/content maps). */
  public static Reply reply(CausalLm model, HfTokenizer tokenizer, ChatTemplate template, List<?> messages, int maxNewTokens,
                            Generation.Sampling sampling) {
    long[] prompt = promptIds(tokenizer, template, messages);
    long[] stops = stopTokens(model, tokenizer, template);
    long[] out = Generation.generate(model, prompt, maxNewTokens, sampling, stops);
    boolean stopped = out.length > 0 && Arrays.stream(stops).anyMatch(s -> s == out[out.length - 1]);
    int[] text = Arrays.stream(out, 0, stopped ? out.length - 1 : out.length).mapToInt(Math::toIntExact).toArray();
    return new Reply(out, tokenizer.decode(text), stopped);
  }

  /** The conversation rendered with the generation prompt, as ids. */
  public static long[] promptIds(HfTokenizer tokenizer, ChatTemplate template, List<?> messages) {
    return Arrays.stream(tokenizer.encode(template.render(messages, Map.of(), true).text())).asLongStream().toArray();
  }

  /** The model's stop ids and each end-of-turn token of the template that is one token of the vocabulary. */
  public static long[] stopTokens(CausalLm model, HfTokenizer tokenizer, ChatTemplate template) {
    LongStream turnEnds = template.turnEnds().stream().map(tokenizer::encode).filter(ids -> ids.length == 1).mapToLong(ids -> ids[0]);
    return LongStream.concat(Arrays.stream(model.stopTokens()), turnEnds).distinct().toArray();
  }
}
