package dev.weft.tokenizer.chat.jinja;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A Python tuple: a list that prints with parentheses and never equals a list. */
final class Tuple extends AbstractList<Object> {
  private final List<Object> items;

  Tuple(List<?> items) { this.items = Collections.unmodifiableList(new ArrayList<>(items)); }

  @Override
  public Object get(int index) { return items.get(index); }

  @Override
  public int size() { return items.size(); }
}
