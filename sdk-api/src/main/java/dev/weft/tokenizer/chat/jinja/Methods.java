package dev.weft.tokenizer.chat.jinja;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The methods of Python's str, dict and list that templates call, none of which changes its value. */
final class Methods {
  private Methods() {}

  static Fn string(Budget budget, String s, String name) {
    return switch (name) {
      case "strip" -> (a, k) -> strip(s, chars(a, k), true, true);
      case "lstrip" -> (a, k) -> strip(s, chars(a, k), true, false);
      case "rstrip" -> (a, k) -> strip(s, chars(a, k), false, true);
      case "split" -> (a, k) -> split(s, Fn.arg(a, k, 0, "sep", null), maxsplit(a, k), false);
      case "rsplit" -> (a, k) -> split(s, Fn.arg(a, k, 0, "sep", null), maxsplit(a, k), true);
      case "splitlines" -> (a, k) -> Collections.unmodifiableList(new ArrayList<Object>(splitlines(s, Py.truthy(Fn.arg(a, k, 0, "keepends", false)))));
      case "startswith" -> (a, k) -> affix(s, a, k, true);
      case "endswith" -> (a, k) -> affix(s, a, k, false);
      case "upper" -> (a, k) -> s.toUpperCase(Locale.ROOT);
      case "lower", "casefold" -> (a, k) -> s.toLowerCase(Locale.ROOT);
      case "title" -> (a, k) -> title(s);
      case "capitalize" -> (a, k) -> capitalize(s);
      case "swapcase" -> (a, k) -> swapcase(s);
      case "replace" -> (a, k) -> replace(budget, s, text(Fn.arg(a, k, 0, "old", null)), text(Fn.arg(a, k, 1, "new", null)),
          Py.asLong(Fn.arg(a, k, 2, "count", -1L)));
      case "find" -> (a, k) -> (long) cpIndex(s, s.indexOf(text(Fn.arg(a, k, 0, "sub", null))));
      case "rfind" -> (a, k) -> (long) cpIndex(s, s.lastIndexOf(text(Fn.arg(a, k, 0, "sub", null))));
      case "index", "rindex" -> (a, k) -> {
        String sub = text(Fn.arg(a, k, 0, "sub", null));
        int i = name.equals("index") ? s.indexOf(sub) : s.lastIndexOf(sub);
        if (i < 0) throw TemplateError.runtime("substring not found");
        return (long) cpIndex(s, i);
      };
      case "count" -> (a, k) -> count(s, text(Fn.arg(a, k, 0, "sub", null)));
      case "join" -> (a, k) -> join(budget, s, Py.iterate(Fn.arg(a, k, 0, "iterable", null)));
      case "format" -> (a, k) -> PyFormat.format(budget, s, a, k);
      case "format_map" -> (a, k) -> PyFormat.format(budget, s, List.of(), mapArg(Fn.arg(a, k, 0, "mapping", null)));
      case "center", "ljust", "rjust" -> (a, k) -> pad(budget, s, name, Py.asLong(Fn.arg(a, k, 0, "width", 0L)), text(Fn.arg(a, k, 1, "fillchar", " ")));
      case "zfill" -> (a, k) -> zfill(budget, s, Py.asLong(Fn.arg(a, k, 0, "width", 0L)));
      case "partition", "rpartition" -> (a, k) -> partition(s, text(Fn.arg(a, k, 0, "sep", null)), name.equals("partition"));
      case "removeprefix" -> (a, k) -> { String p = text(Fn.arg(a, k, 0, "prefix", null)); return s.startsWith(p) ? s.substring(p.length()) : s; };
      case "removesuffix" -> (a, k) -> { String p = text(Fn.arg(a, k, 0, "suffix", null)); return !p.isEmpty() && s.endsWith(p) ? s.substring(0, s.length() - p.length()) : s; };
      case "isdigit", "isdecimal", "isnumeric" -> (a, k) -> !s.isEmpty() && s.codePoints().allMatch(Character::isDigit);
      case "isalpha" -> (a, k) -> !s.isEmpty() && s.codePoints().allMatch(Character::isLetter);
      case "isalnum" -> (a, k) -> !s.isEmpty() && s.codePoints().allMatch(Character::isLetterOrDigit);
      case "isspace" -> (a, k) -> !s.isEmpty() && s.chars().allMatch(c -> Lexer.space((char) c));
      case "isupper" -> (a, k) -> cased(s) && s.equals(s.toUpperCase(Locale.ROOT));
      case "islower" -> (a, k) -> cased(s) && s.equals(s.toLowerCase(Locale.ROOT));
      default -> null;
    };
  }

  static Fn dict(Map<?, ?> m, String name) {
    return switch (name) {
      case "get" -> (a, k) -> {
        Object key = Fn.arg(a, k, 0, "key", null);
        Object found = Py.key(m, key);
        return found == Py.NO_KEY ? Fn.arg(a, k, 1, "default", null) : m.get(found);
      };
      case "keys" -> (a, k) -> Collections.unmodifiableList(new ArrayList<Object>(m.keySet()));
      case "values" -> (a, k) -> Collections.unmodifiableList(new ArrayList<Object>(m.values()));
      case "items" -> (a, k) -> items(m);
      case "copy" -> (a, k) -> m;
      default -> null;
    };
  }

  static List<Object> items(Map<?, ?> m) {
    List<Object> out = new ArrayList<>(m.size());
    for (Map.Entry<?, ?> e : m.entrySet()) out.add(new Tuple(java.util.Arrays.asList(e.getKey(), e.getValue())));
    return Collections.unmodifiableList(out);
  }

  static Fn list(List<?> l, String name) {
    return switch (name) {
      case "index" -> (a, k) -> {
        Object x = Fn.arg(a, k, 0, "value", null);
        for (int i = 0; i < l.size(); i++) if (Py.eq(l.get(i), x)) return (long) i;
        throw TemplateError.runtime(Py.repr(x) + " is not in list");
      };
      case "count" -> (a, k) -> {
        Object x = Fn.arg(a, k, 0, "value", null);
        return l.stream().filter(y -> Py.eq(y, x)).count();
      };
      case "copy" -> (a, k) -> l;
      default -> null;
    };
  }

  // ---- helpers, as CPython's str does them

  private static String text(Object v) {
    if (v instanceof String s) return s;
    if (v instanceof Undefined u) throw u.error();
    throw TemplateError.runtime("expected a string argument, got '" + Py.typeName(v) + "'");
  }

  private static String chars(List<Object> a, Map<String, Object> k) {
    Object c = Fn.arg(a, k, 0, "chars", null);
    return c == null ? null : text(c);
  }

  private static long maxsplit(List<Object> a, Map<String, Object> k) {
    Object m = Fn.arg(a, k, 1, "maxsplit", -1L);
    if (!Py.isInt(m)) throw TemplateError.runtime("maxsplit must be an integer");
    return Py.asLong(m);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> mapArg(Object v) {
    if (!(v instanceof Map<?, ?> m)) throw TemplateError.runtime("format_map() argument must be a mapping");
    return (Map<String, Object>) m;
  }

  static String strip(String s, String chars, boolean left, boolean right) {
    int b = 0, e = s.length();
    while (left && b < e && (chars == null ? Lexer.space(s.charAt(b)) : chars.indexOf(s.charAt(b)) >= 0)) b++;
    while (right && e > b && (chars == null ? Lexer.space(s.charAt(e - 1)) : chars.indexOf(s.charAt(e - 1)) >= 0)) e--;
    return s.substring(b, e);
  }

  static List<Object> split(String s, Object sepArg, long maxsplit, boolean fromRight) {
    List<Object> out = new ArrayList<>();
    if (sepArg == null) {
      List<String> words = new ArrayList<>();
      int i = 0;
      while (i < s.length()) {
        while (i < s.length() && Lexer.space(s.charAt(i))) i++;
        if (i >= s.length()) break;
        int j = i;
        while (j < s.length() && !Lexer.space(s.charAt(j))) j++;
        words.add(s.substring(i, j));
        i = j;
      }
      if (maxsplit < 0 || words.size() <= maxsplit + 1) return Collections.unmodifiableList(new ArrayList<Object>(words));
      // Python keeps the rest unsplit (leading/trailing space of the rest kept from the original)
      String rest = fromRight ? Lexer.rstrip(s) : strip(s, null, true, false);
      List<Object> r = new ArrayList<>();
      if (!fromRight) {
        String cur = rest;
        for (int n = 0; n < maxsplit; n++) {
          int j = 0;
          while (j < cur.length() && !Lexer.space(cur.charAt(j))) j++;
          r.add(cur.substring(0, j));
          cur = strip(cur.substring(j), null, true, false);
        }
        r.add(cur);
      } else {
        String cur = rest;
        List<Object> tail = new ArrayList<>();
        for (int n = 0; n < maxsplit; n++) {
          int j = cur.length();
          while (j > 0 && !Lexer.space(cur.charAt(j - 1))) j--;
          tail.add(0, cur.substring(j));
          cur = Lexer.rstrip(cur.substring(0, j));
        }
        r.add(cur);
        r.addAll(tail);
      }
      return Collections.unmodifiableList(r);
    }
    String sep = text(sepArg);
    if (sep.isEmpty()) throw TemplateError.runtime("empty separator");
    if (!fromRight) {
      int from = 0, n = 0;
      while (maxsplit < 0 || n < maxsplit) {
        int at = s.indexOf(sep, from);
        if (at < 0) break;
        out.add(s.substring(from, at));
        from = at + sep.length();
        n++;
      }
      out.add(s.substring(from));
    } else {
      int to = s.length(), n = 0;
      while (maxsplit < 0 || n < maxsplit) {
        int at = s.lastIndexOf(sep, to - sep.length());
        if (at < 0) break;
        out.add(0, s.substring(at + sep.length(), to));
        to = at;
        n++;
      }
      out.add(0, s.substring(0, to));
    }
    return Collections.unmodifiableList(out);
  }

  /** Python's str.splitlines: every line boundary Python knows, the line ends kept or not. */
  static List<String> splitlines(String s, boolean keepEnds) {
    List<String> out = new ArrayList<>();
    int start = 0, i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      int eol = -1;
      if (c == '\r' && i + 1 < s.length() && s.charAt(i + 1) == '\n') eol = i + 2;
      else if ("\n\r\u000b\u000c\u001c\u001d\u001e\u0085\u2028\u2029".indexOf(c) >= 0) eol = i + 1;
      if (eol < 0) {
        i++;
        continue;
      }
      out.add(s.substring(start, keepEnds ? eol : i));
      start = i = eol;
    }
    if (start < s.length()) out.add(s.substring(start));
    return out;
  }

  private static Object affix(String s, List<Object> a, Map<String, Object> k, boolean prefix) {
    Object p = Fn.arg(a, k, 0, prefix ? "prefix" : "suffix", null);
    if (p instanceof List<?> options) {
      for (Object o : options) if (prefix ? s.startsWith(text(o)) : s.endsWith(text(o))) return true;
      return false;
    }
    return prefix ? s.startsWith(text(p)) : s.endsWith(text(p));
  }

  private static boolean cased(String s) { return s.codePoints().anyMatch(c -> Character.isUpperCase(c) || Character.isLowerCase(c)); }

  static String title(String s) {
    StringBuilder b = new StringBuilder(s.length());
    boolean prevCased = false;
    for (int i = 0; i < s.length(); ) {
      int c = s.codePointAt(i);
      i += Character.charCount(c);
      boolean isCased = Character.isUpperCase(c) || Character.isLowerCase(c) || Character.isTitleCase(c);
      b.appendCodePoint(prevCased ? Character.toLowerCase(c) : Character.toTitleCase(c));
      prevCased = isCased;
    }
    return b.toString();
  }

  static String capitalize(String s) {
    if (s.isEmpty()) return s;
    int c = s.codePointAt(0);
    return new StringBuilder().appendCodePoint(Character.toTitleCase(c)).append(s.substring(Character.charCount(c)).toLowerCase(Locale.ROOT)).toString();
  }

  private static String swapcase(String s) {
    StringBuilder b = new StringBuilder();
    s.codePoints().forEach(c -> b.appendCodePoint(Character.isUpperCase(c) ? Character.toLowerCase(c) : Character.toUpperCase(c)));
    return b.toString();
  }

  static String replace(Budget budget, String s, String old, String with, long count) {
    if (count < 0 && !old.isEmpty()) {
      long hits = count(s, old);
      budget.charge(s.length() + hits * Math.max(0, with.length() - old.length()));
      return s.replace(old, with);
    }
    StringBuilder b = new StringBuilder();
    int from = 0, n = 0;
    if (old.isEmpty()) {
      List<String> cs = Py.chars(s);
      budget.charge(s.length() + (long) with.length() * (cs.size() + 1));
      for (String c : cs) {
        if (count >= 0 && n >= count) { b.append(c); continue; }
        b.append(with).append(c);
        n++;
      }
      if (count < 0 || n < count) b.append(with);
      return b.toString();
    }
    while (n < count) {
      int at = s.indexOf(old, from);
      if (at < 0) break;
      b.append(s, from, at).append(with);
      from = at + old.length();
      n++;
    }
    b.append(s.substring(from));
    budget.charge(b.length());
    return b.toString();
  }

  private static long count(String s, String sub) {
    if (sub.isEmpty()) return Py.len(s) + 1;
    long n = 0;
    for (int at = s.indexOf(sub); at >= 0; at = s.indexOf(sub, at + sub.length())) n++;
    return n;
  }

  private static int cpIndex(String s, int charIndex) { return charIndex < 0 ? -1 : s.codePointCount(0, charIndex); }

  static String join(Budget budget, String sep, List<?> items) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < items.size(); i++) {
      if (!(items.get(i) instanceof String s)) {
        throw TemplateError.runtime("sequence item " + i + ": expected str instance, " + Py.typeName(items.get(i)) + " found");
      }
      if (i > 0) b.append(sep);
      b.append(s);
      budget.charge(b.length());
    }
    return b.toString();
  }

  private static String pad(Budget budget, String s, String how, long width, String fill) {
    long n = Py.len(s);
    if (width <= n) return s;
    budget.charge(width);
    int total = (int) (width - n);
    int left = switch (how) { case "ljust" -> 0; case "rjust" -> total; default -> total / 2 + (total & (int) width & 1); };
    return fill.repeat(left) + s + fill.repeat(total - left);
  }

  private static String zfill(Budget budget, String s, long width) {
    long n = Py.len(s);
    if (width <= n) return s;
    budget.charge(width);
    boolean sign = !s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+');
    return (sign ? s.substring(0, 1) : "") + "0".repeat((int) (width - n)) + (sign ? s.substring(1) : s);
  }

  private static Object partition(String s, String sep, boolean first) {
    int at = first ? s.indexOf(sep) : s.lastIndexOf(sep);
    if (at < 0) return first ? new Tuple(List.of(s, "", "")) : new Tuple(List.of("", "", s));
    return new Tuple(List.of(s.substring(0, at), sep, s.substring(at + sep.length())));
  }
}
