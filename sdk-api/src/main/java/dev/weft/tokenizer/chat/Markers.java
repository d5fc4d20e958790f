package dev.weft.tokenizer.chat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The {@code {% generation %}} markers in rendered text: found, turned into spans, removed. */
final class Markers {
  private Markers() {}

  static ChatTemplate.Rendered extract(String marked) {
    StringBuilder text = new StringBuilder(marked.length());
    List<int[]> spans = new ArrayList<>();
    int open = 0, depth = 0;
    for (int i = 0; i < marked.length(); i++) {
      char c = marked.charAt(i);
      if (c == GenerationTag.START) {
        if (depth++ == 0) open = text.length(); // a block inside a block is part of the outer one
      } else if (c == GenerationTag.END) {
        if (--depth == 0 && text.length() > open) spans.add(new int[] {open, text.length()}); // empty blocks mark nothing
      } else {
        text.append(c);
      }
    }
    return new ChatTemplate.Rendered(text.toString(), spans);
  }

  /** Conversations holding the marker characters (Unicode noncharacters) are refused: they would fake spans. */
  static void refuseIn(Object value) {
    if (value instanceof String s) {
      if (s.indexOf(GenerationTag.START) >= 0 || s.indexOf(GenerationTag.END) >= 0) {
        throw ChatTemplateException.refused("the conversation holds U+FDD0 or U+FDD1, noncharacters Weft reserves; remove them");
      }
    } else if (value instanceof Map<?, ?> m) {
      for (Object v : m.values()) refuseIn(v);
    } else if (value instanceof Iterable<?> it) {
      for (Object v : it) refuseIn(v);
    }
  }
}
