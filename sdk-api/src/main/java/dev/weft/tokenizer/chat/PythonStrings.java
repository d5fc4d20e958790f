package dev.weft.tokenizer.chat;

import java.beans.FeatureDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * Python's {@code str} methods on strings in templates ({@code message.content.startswith('<tool_response>')},
 * {@code .split('</think>')}, {@code .strip('\n')}), as Jinja exposes them; other methods fall through to the next
 * resolver, which refuses what it cannot find.
 */
final class PythonStrings extends ELResolver {
  @Override
  public Object invoke(ELContext context, Object base, Object method, Class<?>[] paramTypes, Object[] params) {
    if (!(base instanceof String s) || method == null) return null;
    Object[] a = params == null ? new Object[0] : params;
    Object r = call(s, method.toString(), a);
    if (r != NOT_A_METHOD) context.setPropertyResolved(true);
    return r == NOT_A_METHOD ? null : r;
  }

  private static final Object NOT_A_METHOD = new Object();

  private static Object call(String s, String name, Object[] a) {
    return switch (name) {
      case "startswith" -> affix(s, a[0], true);
      case "endswith" -> affix(s, a[0], false);
      case "strip" -> rstrip(lstrip(s, arg(a, 0)), arg(a, 0));
      case "lstrip" -> lstrip(s, arg(a, 0));
      case "rstrip" -> rstrip(s, arg(a, 0));
      case "split" -> split(s, arg(a, 0), a.length > 1 ? ((Number) a[1]).intValue() : -1);
      case "upper" -> s.toUpperCase(Locale.ROOT);
      case "lower" -> s.toLowerCase(Locale.ROOT);
      case "title" -> title(s);
      case "capitalize" -> s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1).toLowerCase(Locale.ROOT);
      case "replace" -> replace(s, String.valueOf(a[0]), String.valueOf(a[1]), a.length > 2 ? ((Number) a[2]).intValue() : -1);
      case "find" -> (long) s.indexOf(String.valueOf(a[0]));
      case "count" -> count(s, String.valueOf(a[0]));
      case "join" -> join(s, a[0]);
      case "isspace" -> !s.isEmpty() && s.chars().allMatch(Character::isWhitespace);
      case "isdigit" -> !s.isEmpty() && s.chars().allMatch(Character::isDigit);
      case "isalpha" -> !s.isEmpty() && s.chars().allMatch(Character::isLetter);
      default -> NOT_A_METHOD;
    };
  }

  private static String arg(Object[] a, int i) { return a.length > i && a[i] != null ? a[i].toString() : null; }

  private static boolean affix(String s, Object what, boolean start) {
    if (what instanceof Collection<?> options) {
      for (Object o : options) if (affix(s, o, start)) return true;
      return false;
    }
    return start ? s.startsWith(String.valueOf(what)) : s.endsWith(String.valueOf(what));
  }

  private static boolean strippable(int c, String chars) { return chars == null ? Character.isWhitespace(c) : chars.indexOf(c) >= 0; }

  static String lstrip(String s, String chars) {
    int i = 0;
    while (i < s.length() && strippable(s.charAt(i), chars)) i++;
    return s.substring(i);
  }

  static String rstrip(String s, String chars) {
    int i = s.length();
    while (i > 0 && strippable(s.charAt(i - 1), chars)) i--;
    return s.substring(0, i);
  }

  /** Python's split: on runs of whitespace without a separator (no empty pieces), else on the exact separator. */
  static List<String> split(String s, String sep, int max) {
    List<String> out = new ArrayList<>();
    if (sep == null) {
      String rest = lstrip(s, null);
      while (!rest.isEmpty()) {
        if (max >= 0 && out.size() == max) {
          out.add(rest);
          return out;
        }
        int end = 0;
        while (end < rest.length() && !Character.isWhitespace(rest.charAt(end))) end++;
        out.add(rest.substring(0, end));
        rest = lstrip(rest.substring(end), null);
      }
      return out;
    }
    if (sep.isEmpty()) throw new IllegalArgumentException("empty separator");
    int from = 0;
    for (int at; (max < 0 || out.size() < max) && (at = s.indexOf(sep, from)) >= 0; from = at + sep.length()) {
      out.add(s.substring(from, at));
    }
    out.add(s.substring(from));
    return out;
  }

  private static String title(String s) {
    StringBuilder b = new StringBuilder(s.length());
    boolean prevCased = false;
    for (char c : s.toCharArray()) {
      b.append(prevCased ? Character.toLowerCase(c) : Character.toUpperCase(c));
      prevCased = Character.isLetter(c);
    }
    return b.toString();
  }

  private static String replace(String s, String old, String with, int max) {
    if (max < 0) return s.replace(old, with);
    String r = s;
    int from = 0;
    for (int n = 0; n < max; n++) {
      int at = r.indexOf(old, from);
      if (at < 0) break;
      r = r.substring(0, at) + with + r.substring(at + old.length());
      from = at + with.length();
    }
    return r;
  }

  private static long count(String s, String sub) {
    if (sub.isEmpty()) return s.codePointCount(0, s.length()) + 1L;
    long n = 0;
    for (int at = s.indexOf(sub); at >= 0; at = s.indexOf(sub, at + sub.length())) n++;
    return n;
  }

  private static String join(String sep, Object items) {
    List<String> parts = new ArrayList<>();
    if (items instanceof Iterable<?> it) for (Object o : it) parts.add(String.valueOf(o));
    else parts.add(String.valueOf(items));
    return String.join(sep, parts);
  }

  @Override
  public Object getValue(ELContext context, Object base, Object property) { return null; }

  @Override
  public Class<?> getType(ELContext context, Object base, Object property) { return null; }

  @Override
  public void setValue(ELContext context, Object base, Object property, Object value) {}

  @Override
  public boolean isReadOnly(ELContext context, Object base, Object property) { return true; }

  @Override
  public Iterator<FeatureDescriptor> getFeatureDescriptors(ELContext context, Object base) { return null; }

  @Override
  public Class<?> getCommonPropertyType(ELContext context, Object base) { return null; }
}
