package dev.weft.tokenizer.chat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where the assistant's turns lie in a rendered conversation whose template has no {@code {% generation %}} blocks,
 * found as TRL finds completions: by rendering the conversation's prefixes and diffing them. For assistant message
 * {@code i}, the text {@code messages[:i+1]} adds to {@code messages[:i]} is that turn; the part of it that
 * {@code messages[:i]} with the generation prompt already holds (the {@code <|im_start|>assistant\n} header) is
 * prompt, the rest (content, tool calls, the end-of-turn token) is the target. Text after the turn's last
 * end-of-turn token (a newline) is not. A template whose rendering of a prefix is not a prefix of the longer
 * rendering (it rewrites earlier turns) is refused: its turns cannot be told apart this way.
 */
final class PrefixDiff {
  private PrefixDiff() {}

  /**
   * The [start, end) character spans of the assistant turns of {@code full} (the whole conversation rendered without
   * a generation prompt); only the last one when {@code lastOnly}.
   */
  static List<int[]> spans(ChatTemplate template, String full, List<?> messages, Map<String, Object> extra,
                           List<String> turnEnds, boolean lastOnly) {
    List<int[]> spans = new ArrayList<>();
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (!(messages.get(i) instanceof Map<?, ?> m) || !"assistant".equals(m.get("role"))) continue;
      int[] span = turn(template, full, messages, extra, turnEnds, i);
      if (span[1] > span[0]) spans.add(0, span); // an empty turn has nothing to learn
      if (lastOnly) break;
    }
    return spans;
  }

  private static int[] turn(ChatTemplate template, String full, List<?> messages, Map<String, Object> extra,
                            List<String> turnEnds, int i) {
    String with = template.render(messages.subList(0, i + 1), extra, false).text();
    String before = i == 0 ? "" : template.render(messages.subList(0, i), extra, false).text();
    String prompt = i == 0 ? "" : template.render(messages.subList(0, i), extra, true).text();
    if (!with.startsWith(before) || !full.startsWith(with)) {
      throw ChatTemplateException.refused("the chat template renders messages 1-" + (i + 1) + " as other than the start of "
          + "the whole conversation (it rewrites earlier turns), so assistant message " + (i + 1) + " cannot be found by "
          + "diffing; mark the template's assistant turns with {% generation %}, or pass --train-on all");
    }
    int start = before.length() + common(prompt, with, before.length());
    int end = endOfTurn(with, start, turnEnds);
    return new int[] {start, end};
  }

  /** How many characters {@code a} and {@code b} share from {@code from} on. */
  private static int common(String a, String b, int from) {
    int n = 0;
    while (from + n < a.length() && from + n < b.length() && a.charAt(from + n) == b.charAt(from + n)) n++;
    return n;
  }

  /** The end of the last end-of-turn token after {@code from}, else the end of the text less trailing whitespace. */
  private static int endOfTurn(String text, int from, List<String> turnEnds) {
    int best = -1;
    for (String t : turnEnds) {
      int at = text.lastIndexOf(t);
      if (at >= from) best = Math.max(best, at + t.length());
    }
    if (best >= 0) return best;
    int end = text.length();
    while (end > from && Character.isWhitespace(text.charAt(end - 1))) end--;
    return end;
  }
}
