package dev.weft.tokenizer.chat.jinja;

import java.util.AbstractList;

/** Python's {@code range}: any length, nothing stored; a loop over it is bounded by the step budget alone. */
final class Range extends AbstractList<Object> {
  private final long start;
  private final long stop;
  private final long step;
  private final int size;

  Range(long start, long stop, long step) {
    if (step == 0) throw TemplateError.runtime("range() arg 3 must not be zero");
    this.start = start;
    this.stop = stop;
    this.step = step;
    long n = step > 0 ? (stop - start + step - 1) / step : (start - stop - step - 1) / -step;
    if (n > Integer.MAX_VALUE) throw TemplateError.limit("range() of " + n + " items is past what a render may iterate");
    this.size = (int) Math.max(0, n);
  }

  @Override
  public Object get(int i) { return start + i * step; }

  @Override
  public int size() { return size; }

  @Override
  public String toString() { return "range(" + start + ", " + stop + (step == 1 ? ")" : ", " + step + ")"); }
}
