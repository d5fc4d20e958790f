package dev.weft.tokenizer.chat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where the assistant's turns lie in a rendered conversation whose template has no {@code {% generation %}}
 * blocks: each assistant message's content (as written, else stripped, as templates often trim it) through the
 * first end-of-turn token after it. Every message's content is looked for in order, each after the one before, so
 * an assistant's words are not found inside an earlier user turn.
 */
final class AssistantSpans {
  private AssistantSpans() {}

  static List<int[]> find(String text, List<?> messages, List<String> turnEnds) {
    List<int[]> spans = new ArrayList<>();
    int cursor = 0, n = 0;
    for (Object m : messages) {
      if (!(m instanceof Map<?, ?> msg)) continue;
      if (!"assistant".equals(msg.get("role"))) {
        cursor = past(text, msg.get("content"), cursor);
        continue;
      }
      n++;
      Object content = msg.get("content");
      if (content == null) continue; // a tool call without text: nothing to find
      if (!(content instanceof String s)) {
        throw ChatTemplateException.refused("assistant message " + n + " has content that is not a string; mark the "
            + "template's assistant turns with {% generation %}, or pass --train-on all");
      }
      String body = s.strip();
      int at = text.indexOf(s, cursor);
      int len = s.length();
      if (at < 0) {
        at = text.indexOf(body, cursor);
        len = body.length();
      }
      if (at < 0) {
        throw ChatTemplateException.refused("assistant message " + n + "'s content is not in the rendered conversation "
            + "(the template changes it); mark its assistant turns with {% generation %}, or pass --train-on all");
      }
      int end = endOfTurn(text, at + len, turnEnds);
      if (end > at) spans.add(new int[] {at, end});
      cursor = Math.max(end, at + len);
    }
    return spans;
  }

  /** Past another message's content when the template wrote it (templates may drop or change some), else {@code cursor}. */
  private static int past(String text, Object content, int cursor) {
    if (!(content instanceof String s) || s.isEmpty()) return cursor;
    int at = text.indexOf(s, cursor);
    if (at < 0 && !s.strip().isEmpty()) {
      at = text.indexOf(s.strip(), cursor);
      return at < 0 ? cursor : at + s.strip().length();
    }
    return at < 0 ? cursor : at + s.length();
  }

  /** The end of the first end-of-turn token at or after {@code from}; {@code from} when there is none. */
  private static int endOfTurn(String text, int from, List<String> turnEnds) {
    int best = -1, bestEnd = from;
    for (String t : turnEnds) {
      int at = text.indexOf(t, from);
      if (at >= 0 && (best < 0 || at < best)) {
        best = at;
        bestEnd = at + t.length();
      }
    }
    return bestEnd;
  }
}
