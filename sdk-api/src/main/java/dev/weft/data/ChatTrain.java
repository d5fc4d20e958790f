package dev.weft.data;

import dev.weft.spec.SpecException;

/**
 * {@code data.chat.train} applied to the target flags of chat shards: {@code assistant} (or empty) keeps the flags as
 * {@code weft data prepare} wrote them, {@code all} makes every token a target, {@code last} keeps, in each
 * conversation, only its last run of targets: the last assistant turn, whose content, tool calls and end of turn are
 * one run (the next turn's header always lies between two assistant turns).
 */
public final class ChatTrain {
  private ChatTrain() {}

  /**
   * The flags training reads for {@code train}: {@code flags} itself, null (every token a target) for {@code all}, or
   * a view of the last run of each document (ending at {@code ends}, exclusive) for {@code last}.
   */
  public static TokenArray flags(TokenArray flags, long[] ends, String train, String what) {
    if (train.isEmpty() || train.equals("assistant")) return flags;
    if (flags == null) {
      throw new SpecException("data.chat.train", what + " holds no target flags (not chat data from weft data prepare "
          + "--format chat); remove data.chat.train");
    }
    if (train.equals("all")) return null;
    if (ends == null) {
      throw new SpecException("data.chat.train", what + " records no conversation ends (prepared by an older Weft); "
          + "prepare it again, or prepare with --train-on last and remove data.chat.train");
    }
    return new LastRun(flags, ends, lastRunStarts(flags, ends));
  }

  /** Per document, where its last run of targets starts (its end when it has none). */
  static long[] lastRunStarts(TokenArray flags, long[] ends) {
    long[] runStarts = new long[ends.length];
    int[] buf = new int[1 << 16];
    for (int d = 0; d < ends.length; d++) {
      long end = ends[d], run = end;
      boolean previous = false;
      for (long from = d == 0 ? 0 : ends[d - 1]; from < end; from += buf.length) {
        int n = (int) Math.min(buf.length, end - from);
        int[] b = n == buf.length ? buf : new int[n];
        flags.read(from, b);
        for (int k = 0; k < n; k++) {
          boolean target = b[k] != 0;
          if (target && !previous) run = from + k;
          previous = target;
        }
      }
      runStarts[d] = run;
    }
    return runStarts;
  }

  /** The flags of the last run of each document. */
  private record LastRun(TokenArray flags, long[] ends, long[] runStarts) implements TokenArray {
    @Override
    public long size() { return flags.size(); }

    @Override
    public int get(long i) {
      int d = java.util.Arrays.binarySearch(ends, i);
      d = d >= 0 ? d + 1 : -d - 1; // the first document whose end is past i
      return d < ends.length && i >= runStarts[d] ? flags.get(i) : 0;
    }
  }
}
