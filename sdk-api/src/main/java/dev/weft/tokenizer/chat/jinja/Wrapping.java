package dev.weft.tokenizer.chat.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Jinja2's filters that shorten or re-flow text: {@code truncate} and {@code wordwrap} (Python's textwrap). */
final class Wrapping {
  private Wrapping() {}

  /** {@code truncate(length=255, killwords=False, end='...', leeway=5)}, counted in code points as Python counts. */
  static Object truncate(Object v, List<Object> a, Map<String, Object> k) {
    String s = Py.str(v);
    long length = Py.asLong(Fn.arg(a, k, 0, "length", 255L));
    boolean killwords = Py.truthy(Fn.arg(a, k, 1, "killwords", false));
    String end = Py.str(Fn.arg(a, k, 2, "end", "..."));
    Object leewayArg = Fn.arg(a, k, 3, "leeway", null);
    long leeway = leewayArg == null ? 5 : Py.asLong(leewayArg); // Jinja2's policy truncate.leeway
    int n = s.codePointCount(0, s.length()), endLength = end.codePointCount(0, end.length());
    if (length < endLength) throw TemplateError.runtime("expected length >= " + endLength + ", got " + length);
    if (leeway < 0) throw TemplateError.runtime("expected leeway >= 0, got " + leeway);
    if (n <= length + leeway) return s;
    String head = s.substring(0, s.offsetByCodePoints(0, (int) (length - endLength)));
    if (killwords) return head + end;
    int space = head.lastIndexOf(' ');
    return (space < 0 ? head : head.substring(0, space)) + end;
  }

  /**
   * {@code wordwrap(width=79, break_long_words=True, wrapstring='\n', break_on_hyphens=True)}: each line of the text
   * wrapped as {@code textwrap.wrap} does (whitespace kept inside a line, dropped at the line's ends, long words cut).
   */
  static Object wordwrap(Budget b, Object v, List<Object> a, Map<String, Object> k) {
    String s = Py.str(v);
    int width = (int) Py.asLong(Fn.arg(a, k, 0, "width", 79L));
    if (width <= 0) throw TemplateError.runtime("invalid width " + width + " (must be > 0)");
    boolean breakLong = Py.truthy(Fn.arg(a, k, 1, "break_long_words", true));
    Object ws = Fn.arg(a, k, 2, "wrapstring", null);
    String wrap = ws == null ? "\n" : Py.str(ws);
    boolean hyphens = Py.truthy(Fn.arg(a, k, 3, "break_on_hyphens", true));
    b.charge(s.length());
    List<String> out = new ArrayList<>();
    for (String line : Methods.splitlines(s, false)) out.add(String.join(wrap, wrapLine(line, width, breakLong, hyphens)));
    return String.join(wrap, out);
  }

  /** textwrap's chunks: runs of whitespace, and words (split after a hyphen between letters when asked). */
  private static List<String> chunks(String text, boolean hyphens) {
    List<String> chunks = new ArrayList<>();
    int i = 0;
    while (i < text.length()) {
      int j = i;
      boolean space = Character.isWhitespace(text.charAt(i));
      while (j < text.length() && Character.isWhitespace(text.charAt(j)) == space) j++;
      String run = text.substring(i, j);
      if (space || !hyphens) {
        chunks.add(run);
      } else {
        int from = 0;
        for (int h = 1; h < run.length() - 1; h++) {
          if (run.charAt(h) == '-' && Character.isLetter(run.charAt(h - 1)) && Character.isLetter(run.charAt(h + 1))) {
            chunks.add(run.substring(from, h + 1));
            from = h + 1;
          }
        }
        chunks.add(run.substring(from));
      }
      i = j;
    }
    return chunks;
  }

  private static List<String> wrapLine(String text, int width, boolean breakLong, boolean hyphens) {
    List<String> chunks = chunks(text, hyphens);
    List<String> lines = new ArrayList<>();
    int c = 0;
    while (c < chunks.size()) {
      if (!lines.isEmpty() && chunks.get(c).isBlank()) c++; // whitespace that would start a later line
      List<String> line = new ArrayList<>();
      int len = 0;
      while (c < chunks.size() && len + length(chunks.get(c)) <= width) {
        line.add(chunks.get(c));
        len += length(chunks.get(c++));
      }
      if (c < chunks.size() && length(chunks.get(c)) > width) {
        String chunk = chunks.get(c);
        if (breakLong) {
          int room = Math.max(width - len, 1), end = room;
          if (hyphens && length(chunk) > room) {
            int hyphen = chunk.lastIndexOf('-', chunk.offsetByCodePoints(0, room) - 1);
            if (hyphen > 0 && !chunk.substring(0, hyphen).chars().allMatch(ch -> ch == '-')) end = chunk.codePointCount(0, hyphen) + 1;
          }
          int cut = chunk.offsetByCodePoints(0, end);
          line.add(chunk.substring(0, cut));
          chunks.set(c, chunk.substring(cut));
        } else if (line.isEmpty()) {
          line.add(chunks.get(c++));
        }
      }
      if (!line.isEmpty() && line.get(line.size() - 1).isBlank()) line.remove(line.size() - 1);
      if (!line.isEmpty()) lines.add(String.join("", line));
    }
    return lines;
  }

  private static int length(String s) { return s.codePointCount(0, s.length()); }
}
