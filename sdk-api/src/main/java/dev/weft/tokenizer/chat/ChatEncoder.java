package dev.weft.tokenizer.chat;

import dev.weft.tokenizer.HfTokenizer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A conversation → token ids (the tokenizer's chat template rendered, then encoded without added special tokens,
 * as {@code apply_chat_template(conversation, tokenize=True)}) and a target flag per token: the spans the template
 * marks with {@code {% generation %}}, else each assistant turn found by diffing the renderings of the conversation's
 * prefixes ({@link PrefixDiff}: its content, tool calls and end-of-turn token), or every token ({@link TrainOn#ALL}).
 */
public final class ChatEncoder {
  /**
   * Which tokens are training targets: every assistant turn (TRL's {@code assistant_only_loss}, Axolotl's
   * {@code roles_to_train: [assistant]}), the last assistant turn only (Axolotl's {@code train_on_eos: last}-style
   * single-turn training), or every token.
   */
  public enum TrainOn { ASSISTANT, LAST, ALL }

  /** The ids of one conversation and whether each is a target. */
  public record Encoded(int[] ids, boolean[] targets) {}

  private final HfTokenizer tokenizer;
  private final ChatTemplate template;
  private final TrainOn trainOn;

  public ChatEncoder(HfTokenizer tokenizer, ChatTemplate template, TrainOn trainOn) {
    this.tokenizer = tokenizer;
    this.template = template;
    this.trainOn = trainOn;
  }

  /** Encodes {@code messages} (role/content maps, as the template reads them) with {@code extra} template variables. */
  public Encoded encode(List<?> messages, Map<String, Object> extra) {
    ChatTemplate.Rendered r = template.render(messages, extra, false);
    HfTokenizer.Offsets o = tokenizer.encodeWithOffsets(r.text());
    boolean[] targets = new boolean[o.ids().length];
    if (trainOn == TrainOn.ALL) {
      Arrays.fill(targets, true);
    } else {
      if (template.marksGeneration()) {
        List<int[]> spans = r.generation();
        if (trainOn == TrainOn.LAST && spans.size() > 1) spans = spans.subList(spans.size() - 1, spans.size());
        mark(targets, o, r.text(), spans);
      } else {
        overlap(targets, o, r.text(), PrefixDiff.spans(template, r.text(), messages, extra, template.turnEnds(), trainOn == TrainOn.LAST));
      }
    }
    return new Encoded(o.ids(), targets);
  }

  /** How targets are found, for prepare to say. */
  public String method() {
    if (trainOn == TrainOn.ALL) return "every token";
    String which = trainOn == TrainOn.LAST ? "the last assistant turn" : "every assistant turn";
    return which + (template.marksGeneration() ? ", from the template's {% generation %} blocks"
        : ", found by diffing the renderings of each conversation's prefixes (the template has no {% generation %} blocks)");
  }

  /**
   * Flags the tokens of each character span as transformers does for {@code return_assistant_tokens_mask}: from the
   * token holding the span's first character through the one holding its last (to the end when that is token 0 or
   * none, as its code does); a span whose first character no token holds ends the marking.
   */
  static void mark(boolean[] targets, HfTokenizer.Offsets o, String text, List<int[]> spans) {
    for (int[] span : spans) {
      int start = charToToken(o, text.codePointCount(0, span[0]));
      int end = charToToken(o, text.codePointCount(0, span[1]) - 1);
      if (start < 0) break;
      int stop = end <= 0 ? targets.length : end + 1;
      for (int t = start; t < stop; t++) targets[t] = true;
    }
  }

  /**
   * Flags every token that holds any character of a span: a turn's last character split across byte-level tokens
   * (an emoji at the very end, with no end-of-turn token after it) is learnt whole, not its first bytes only.
   */
  static void overlap(boolean[] targets, HfTokenizer.Offsets o, String text, List<int[]> spans) {
    for (int[] span : spans) {
      int s = text.codePointCount(0, span[0]), e = text.codePointCount(0, span[1]);
      for (int t = 0; t < targets.length; t++) if (o.starts()[t] < e && o.ends()[t] > s) targets[t] = true;
    }
  }

  /** The first token whose span holds code point {@code c}; -1 when none does. */
  private static int charToToken(HfTokenizer.Offsets o, int c) {
    for (int t = 0; t < o.ids().length; t++) if (o.starts()[t] <= c && c < o.ends()[t]) return t;
    return -1;
  }
}
