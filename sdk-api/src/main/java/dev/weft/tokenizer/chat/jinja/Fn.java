package dev.weft.tokenizer.chat.jinja;

import java.util.List;
import java.util.Map;

/** Something a template can call: a global, a bound method, a macro, {@code loop.cycle}. */
@FunctionalInterface
interface Fn {
  Object call(List<Object> args, Map<String, Object> kwargs);

  /** Positional argument {@code i}, else keyword {@code name}, else {@code otherwise}. */
  static Object arg(List<Object> args, Map<String, Object> kwargs, int i, String name, Object otherwise) {
    if (i >= 0 && i < args.size()) return args.get(i);
    return kwargs.containsKey(name) ? kwargs.get(name) : otherwise;
  }
}
