package dev.weft.tokenizer.chat.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Template source → tokens, as Jinja2's lexer makes them under transformers' settings: newlines normalised to
 * {@code \n} and one trailing newline dropped, {@code trim_blocks} (the newline after a block or comment tag goes),
 * {@code lstrip_blocks} (spaces before a block or comment tag that starts its line go), {@code -} and {@code +}
 * whitespace control, comments and {@code raw} blocks.
 */
final class Lexer {
  enum Kind { DATA, VAR_BEGIN, VAR_END, BLOCK_BEGIN, BLOCK_END, NAME, STRING, INT, FLOAT, OP, EOF }

  record Token(Kind kind, String text, Object value, int line) {
    boolean is(Kind k, String t) { return kind == k && text.equals(t); }

    boolean op(String t) { return is(Kind.OP, t); }

    boolean name(String t) { return is(Kind.NAME, t); }
  }

  private static final Pattern RAW_BEGIN = Pattern.compile("\\{%[-+]?\\s*raw\\s*(-%}\\s*|%})");
  private static final Pattern RAW_END = Pattern.compile("\\{%([-+]?)\\s*endraw\\s*(\\+%}|-%}\\s*|%}\\n?)");
  private static final Pattern FLOAT = Pattern.compile("(\\d+_)*\\d+((\\.(\\d+_)*\\d+)?[eE][+\\-]?(\\d+_)*\\d+|\\.(\\d+_)*\\d+)");
  private static final Pattern INT = Pattern.compile("0[bB](_?[01])+|0[oO](_?[0-7])+|0[xX](_?[\\da-fA-F])+|[1-9](_?\\d)*|0(_?0)*");
  private static final Pattern NAME = Pattern.compile("[\\p{L}_][\\p{L}\\p{N}_]*");
  private static final String[] OPS = {"//", "**", "==", "!=", "<=", ">=", "+", "-", "/", "*", "%", "~", "[", "]", "(", ")",
      "{", "}", "<", ">", "=", ".", ":", "|", ",", ";"};

  private final String src;
  private final List<Token> out = new ArrayList<>();
  private int pos;
  private int line = 1;

  private Lexer(String source) { this.src = source; }

  /** The source as Jinja2 reads it: every {@code \r\n} and {@code \r} a {@code \n}, one trailing newline dropped. */
  static String normalise(String source) {
    String s = source.replace("\r\n", "\n").replace('\r', '\n');
    return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
  }

  static List<Token> lex(String source) {
    Lexer l = new Lexer(normalise(source));
    l.root();
    l.out.add(new Token(Kind.EOF, "", null, l.line));
    return l.out;
  }

  private void root() {
    while (pos < src.length()) {
      int open = nextOpen(pos);
      if (open < 0) {
        data(src.substring(pos));
        pos = src.length();
        return;
      }
      String text = src.substring(pos, open);
      char kind = src.charAt(open + 1);
      char sign = open + 2 < src.length() ? src.charAt(open + 2) : 0;
      if (sign == '-') {
        text = rstrip(text);
      } else if (sign != '+' && kind != '{') {
        text = lstripBlock(text, pos);
      }
      data(text);
      advanceTo(open);
      Matcher raw = RAW_BEGIN.matcher(src).region(open, src.length());
      if (kind == '#') comment(open + (sign == '-' || sign == '+' ? 3 : 2));
      else if (kind == '%' && raw.lookingAt()) raw(raw.end());
      else tag(kind == '{', open + (sign == '-' || sign == '+' ? 3 : 2));
    }
  }

  private int nextOpen(int from) {
    for (int i = src.indexOf('{', from); i >= 0 && i + 1 < src.length(); i = src.indexOf('{', i + 1)) {
      char c = src.charAt(i + 1);
      if (c == '{' || c == '%' || c == '#') return i;
    }
    return -1;
  }

  /** lstrip_blocks: the whitespace between the line's start and a block tag goes, when nothing else is there. */
  private String lstripBlock(String text, int textStart) {
    int l = text.lastIndexOf('\n') + 1;
    boolean lineStart = l > 0 || textStart == 0 || src.charAt(textStart - 1) == '\n';
    if (!lineStart || l == text.length()) return text;
    for (int i = l; i < text.length(); i++) if (!space(text.charAt(i))) return text;
    return text.substring(0, l);
  }

  private void comment(int from) {
    int end = src.indexOf("#}", from);
    if (end < 0) throw TemplateError.syntax(line, "missing end of comment tag");
    char before = end > from ? src.charAt(end - 1) : 0;
    advanceTo(end + 2);
    if (before == '-') skipSpace();
    else if (before != '+') trimNewline();
  }

  private void raw(int from) {
    Matcher m = RAW_END.matcher(src).region(from, src.length());
    if (!m.find()) throw TemplateError.syntax(line, "missing endraw for a raw block");
    String text = src.substring(from, m.start());
    if (m.group(1).equals("-")) text = rstrip(text);
    else if (!m.group(1).equals("+")) text = lstripBlock(text, from);
    pos = from;
    data(text);
    advanceTo(m.end());
  }

  private void tag(boolean variable, int from) {
    out.add(new Token(variable ? Kind.VAR_BEGIN : Kind.BLOCK_BEGIN, variable ? "{{" : "{%", null, line));
    advanceTo(from);
    int depth = 0;
    while (true) {
      skipSpace();
      if (pos >= src.length()) throw TemplateError.syntax(line, "unexpected end of template inside a " + (variable ? "{{ }}" : "{% %}") + " tag");
      if (depth == 0 && end(variable)) return;
      Matcher m;
      char c = src.charAt(pos);
      if (c == '\'' || c == '"') {
        string(c);
      } else if ((m = FLOAT.matcher(src).region(pos, src.length())).lookingAt() && (pos == 0 || src.charAt(pos - 1) != '.')) {
        emit(Kind.FLOAT, m.group(), Double.parseDouble(m.group().replace("_", "")), m.end());
      } else if ((m = INT.matcher(src).region(pos, src.length())).lookingAt()) {
        emit(Kind.INT, m.group(), integer(m.group()), m.end());
      } else if ((m = NAME.matcher(src).region(pos, src.length())).lookingAt()) {
        emit(Kind.NAME, m.group(), null, m.end());
      } else {
        String op = null;
        for (String o : OPS) if (src.startsWith(o, pos)) { op = o; break; }
        if (op == null) throw TemplateError.syntax(line, "unexpected character " + Py.reprString(String.valueOf(c)));
        if (op.equals("(") || op.equals("[") || op.equals("{")) depth++;
        if (op.equals(")") || op.equals("]") || op.equals("}")) depth = Math.max(0, depth - 1);
        emit(Kind.OP, op, null, pos + op.length());
      }
    }
  }

  private boolean end(boolean variable) {
    String close = variable ? "}}" : "%}";
    Kind kind = variable ? Kind.VAR_END : Kind.BLOCK_END;
    if (src.startsWith("-" + close, pos)) {
      out.add(new Token(kind, close, null, line));
      advanceTo(pos + 3);
      skipSpace();
      return true;
    }
    if (!variable && src.startsWith("+" + close, pos)) {
      out.add(new Token(kind, close, null, line));
      advanceTo(pos + 3);
      return true;
    }
    if (src.startsWith(close, pos)) {
      out.add(new Token(kind, close, null, line));
      advanceTo(pos + 2);
      if (!variable) trimNewline();
      return true;
    }
    return false;
  }

  private static Object integer(String text) {
    String t = text.replace("_", "");
    if (t.length() > 4300) throw TemplateError.limit("the integer literal " + text.substring(0, 20) + "... has more than 4300 digits");
    boolean radix = t.length() > 1 && Character.isLetter(t.charAt(1));
    int base = !radix ? 10 : switch (Character.toLowerCase(t.charAt(1))) { case 'b' -> 2; case 'o' -> 8; default -> 16; };
    return Py.norm(new java.math.BigInteger(radix ? t.substring(2) : t, base));
  }

  private void string(char quote) {
    int i = pos + 1;
    StringBuilder raw = new StringBuilder();
    while (i < src.length() && src.charAt(i) != quote) {
      if (src.charAt(i) == '\\' && i + 1 < src.length()) raw.append(src.charAt(i++));
      raw.append(src.charAt(i++));
    }
    if (i >= src.length()) throw TemplateError.syntax(line, "unterminated string literal");
    emit(Kind.STRING, src.substring(pos, i + 1), unescape(raw.toString()), i + 1);
  }

  /** Python's escape sequences in a string literal. */
  private String unescape(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '\\' || i + 1 >= s.length()) {
        b.append(c);
        continue;
      }
      char e = s.charAt(++i);
      switch (e) {
        case 'n' -> b.append('\n');
        case 't' -> b.append('\t');
        case 'r' -> b.append('\r');
        case '\\' -> b.append('\\');
        case '\'' -> b.append('\'');
        case '"' -> b.append('"');
        case 'a' -> b.append('\u0007');
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'v' -> b.append('\u000b');
        case '\n' -> { }
        case 'x', 'u', 'U' -> {
          int n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          String hex = s.substring(i + 1, Math.min(s.length(), i + 1 + n));
          if (hex.length() < n || !hex.matches("[0-9a-fA-F]+")) throw TemplateError.syntax(line, "truncated \\" + e + " escape");
          b.appendCodePoint(Integer.parseInt(hex, 16));
          i += n;
        }
        default -> {
          if (e >= '0' && e <= '7') {
            int j = i, v = 0;
            while (j < s.length() && j < i + 3 && s.charAt(j) >= '0' && s.charAt(j) <= '7') v = v * 8 + (s.charAt(j++) - '0');
            b.append((char) v);
            i = j - 1;
          } else {
            b.append('\\').append(e);
          }
        }
      }
    }
    return b.toString();
  }

  private void emit(Kind kind, String text, Object value, int end) {
    out.add(new Token(kind, text, value, line));
    advanceTo(end);
  }

  private void data(String text) {
    if (!text.isEmpty()) out.add(new Token(Kind.DATA, text, text, line));
  }

  private void advanceTo(int p) {
    for (int i = pos; i < p; i++) if (src.charAt(i) == '\n') line++;
    pos = Math.max(pos, p);
  }

  private void skipSpace() {
    int p = pos;
    while (p < src.length() && space(src.charAt(p))) p++;
    advanceTo(p);
  }

  private void trimNewline() {
    if (pos < src.length() && src.charAt(pos) == '\n') advanceTo(pos + 1);
  }

  static boolean space(char c) { return Character.isWhitespace(c) || Character.isSpaceChar(c) || c == '\u0085'; }

  static String rstrip(String s) {
    int e = s.length();
    while (e > 0 && space(s.charAt(e - 1))) e--;
    return s.substring(0, e);
  }
}
