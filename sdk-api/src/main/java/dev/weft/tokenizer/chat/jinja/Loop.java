package dev.weft.tokenizer.chat.jinja;

import java.util.List;

/** The {@code loop} variable of a for loop: where in the items this turn is, and its neighbours. */
final class Loop {
  private final List<?> items;
  int index0;

  Loop(List<?> items) { this.items = items; }

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
      case "depth" -> 1L;
      case "depth0" -> 0L;
      case "previtem" -> index0 > 0 ? items.get(index0 - 1) : new Undefined("there is no previous item");
      case "nextitem" -> index0 + 1 < n ? items.get(index0 + 1) : new Undefined("there is no next item");
      case "cycle" -> (Fn) (args, kwargs) -> {
        if (args.isEmpty()) throw TemplateError.runtime("no items for cycling given");
        return args.get(index0 % args.size());
      };
      default -> new Undefined("'LoopContext object' has no attribute '" + name + "'");
    };
  }
}
