package dev.weft.tokenizer.chat.jinja;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Jinja2's tests ({@code x is defined}, {@code x is string}, ...), as its builtin ones answer. */
final class Tests {
  private Tests() {}

  private static final Set<String> NAMES = Set.of("defined", "undefined", "none", "boolean", "true", "false", "integer",
      "float", "number", "string", "mapping", "iterable", "sequence", "callable", "sameas", "escaped", "lower", "upper",
      "odd", "even", "divisibleby", "eq", "equalto", "==", "ne", "!=", "lt", "lessthan", "<", "le", "<=", "gt",
      "greaterthan", ">", "ge", ">=", "in", "filter", "test");

  static boolean has(String name) { return NAMES.contains(name); }

  static boolean apply(Budget budget, String name, Object v, List<Object> args) {
    Object arg = args.isEmpty() ? null : args.get(0);
    return switch (name) {
      case "defined" -> !(v instanceof Undefined);
      case "undefined" -> v instanceof Undefined;
      case "none" -> v == null;
      case "boolean" -> v instanceof Boolean;
      case "true" -> Boolean.TRUE.equals(v);
      case "false" -> Boolean.FALSE.equals(v);
      case "integer" -> Py.isInt(v) && !(v instanceof Boolean);
      case "float" -> v instanceof Double;
      case "number" -> Py.isNumber(v);
      case "string" -> v instanceof String;
      case "mapping" -> v instanceof Map;
      case "iterable" -> v instanceof String || v instanceof List || v instanceof Map || v instanceof Undefined;
      case "sequence" -> v instanceof String || v instanceof List || v instanceof Map || v instanceof Undefined;
      case "callable" -> v instanceof Fn;
      case "sameas" -> v == arg || ((v instanceof String || Py.isNumber(v)) && v.equals(arg)); // immutable scalars: identity is equality
      case "escaped" -> false;
      case "lower" -> v instanceof String s ? s.equals(s.toLowerCase(Locale.ROOT)) : Py.str(v).equals(Py.str(v).toLowerCase(Locale.ROOT));
      case "upper" -> v instanceof String s ? s.equals(s.toUpperCase(Locale.ROOT)) : Py.str(v).equals(Py.str(v).toUpperCase(Locale.ROOT));
      case "odd" -> Py.asLong(number(v)) % 2 != 0;
      case "even" -> Py.asLong(number(v)) % 2 == 0;
      case "divisibleby" -> Py.asLong(number(v)) % Py.asLong(number(arg)) == 0;
      case "eq", "equalto", "==" -> Py.eq(v, arg);
      case "ne", "!=" -> !Py.eq(v, arg);
      case "lt", "lessthan", "<" -> Py.compare(v, arg, "<") < 0;
      case "le", "<=" -> Py.compare(v, arg, "<=") <= 0;
      case "gt", "greaterthan", ">" -> Py.compare(v, arg, ">") > 0;
      case "ge", ">=" -> Py.compare(v, arg, ">=") >= 0;
      case "in" -> Py.contains(arg, v);
      case "filter" -> v instanceof String s && Filters.has(s);
      case "test" -> v instanceof String s && has(s);
      default -> throw TemplateError.runtime("no test named '" + name + "'");
    };
  }

  private static Object number(Object v) {
    if (v instanceof Undefined u) throw u.error();
    if (!Py.isNumber(v)) throw TemplateError.runtime("expected a number, got '" + Py.typeName(v) + "'");
    return v;
  }
}
