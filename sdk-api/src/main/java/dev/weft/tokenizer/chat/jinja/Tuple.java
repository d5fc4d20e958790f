package dev.weft.tokenizer.chat.jinja;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A Python tuple: a list that prints with parentheses and never equals a list; a named one also has its fields. */
final class Tuple extends AbstractList<Object> {
  private final List<Object> items;
  private final List<String> names;

  Tuple(List<?> items) { this(items, List.of()); }

  /** A named tuple ({@code groupby}'s {@code (grouper, list)}): item i is also attribute {@code names[i]}. */
  Tuple(List<?> items, List<String> names) {
    this.items = Collections.unmodifiableList(new ArrayList<>(items));
    this.names = names;
  }

  /** Whether {@code name} is one of a named tuple's fields. */
  boolean hasField(String name) { return names.contains(name); }

  Object field(String name) { return items.get(names.indexOf(name)); }

  @Override
  public Object get(int index) { return items.get(index); }

  @Override
  public int size() { return items.size(); }
}
