package dev.weft.tokenizer.chat.jinja;

import java.util.List;
import java.util.Map;

/**
 * The {@code loop} variable of a for loop: where in the items this turn is, its neighbours, its depth; called, as
 * {@code loop(items)} in a recursive loop, it renders the loop over {@code items} one level deeper.
 */
final class Loop implements Fn {
  private final List<?> items;
  private final int depth0;
  private final Fn recurse; // null: the loop is not recursive
  int index0;
  private Object lastChanged = NOT_YET;
  private static final Object NOT_YET = new Object();

  Loop(List<?> items, int depth0, Fn recurse) {
    this.items = items;
    this.depth0 = depth0;
    this.recurse = recurse;
  }

  @Override
  public Object call(List<Object> args, Map<String, Object> kwargs) {
    if (recurse == null) throw TemplateError.runtime("Tried to call non recursive loop. Maybe you forgot the 'recursive' modifier.");
    if (args.size() != 1) throw TemplateError.runtime("loop() takes the items to loop over");
    return recurse.call(args, kwargs);
  }

  Object attr(String name) {
    int n = items.size();
    return switch (name) {
      case "index" -> (long) index0 + 1;
      case "index0" -> (long) index0;
      case "revindex" -> (long) (n - index0);
      case "revindex0" -> (long) (n - index0 - 1);
      case "first" -> index0 == 0;
      case "last" -> index0 == n - 1;
      case "length" -> (long) n;
      case "depth" -> (long) depth0 + 1;
      case "depth0" -> (long) depth0;
      case "previtem" -> index0 > 0 ? items.get(index0 - 1) : new Undefined("there is no previous item");
      case "nextitem" -> index0 + 1 < n ? items.get(index0 + 1) : new Undefined("there is no next item");
      case "cycle" -> (Fn) (args, kwargs) -> {
        if (args.isEmpty()) throw TemplateError.runtime("no items for cycling given");
        return args.get(index0 % args.size());
      };
      case "changed" -> (Fn) (args, kwargs) -> {
        Object value = args.size() == 1 ? args.get(0) : new Tuple(args);
        if (lastChanged != NOT_YET && Py.eq(lastChanged, value)) return false;
        lastChanged = value;
        return true;
      };
      default -> new Undefined("'LoopContext object' has no attribute '" + name + "'");
    };
  }
}
