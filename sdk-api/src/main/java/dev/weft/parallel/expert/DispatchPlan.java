package dev.weft.parallel.expert;

/**
 * Where a rank's token–expert assignments go and come from (pure): experts are split in contiguous blocks of
 * {@code local} over the ep ranks; this rank sends the rows it routed to each rank's experts ({@code send}), and
 * receives from each source rank its rows for this rank's experts, ordered by source then expert ({@code recv}).
 * {@code order} regroups the received rows by local expert (then source), the order the experts run in, and
 * {@code perExpert} counts each local expert's rows.
 *
 * @param fromSource [source rank][local expert] rows this rank receives
 */
record DispatchPlan(long[] send, long[] recv, long[] order, long[] perExpert) {
  /** {@code counts}: this rank's assignments per global expert; {@code fromSource}: what the counts exchange gave. */
  static DispatchPlan of(long[] counts, long[][] fromSource, int local) {
    int ranks = fromSource.length;
    long[] send = new long[ranks], recv = new long[ranks], perExpert = new long[local];
    for (int e = 0; e < counts.length; e++) send[e / local] += counts[e];
    long[][] start = new long[ranks][local];
    long at = 0;
    for (int r = 0; r < ranks; r++) {
      for (int e = 0; e < local; e++) {
        start[r][e] = at;
        at += fromSource[r][e];
        recv[r] += fromSource[r][e];
        perExpert[e] += fromSource[r][e];
      }
    }
    long[] order = new long[(int) at];
    int i = 0;
    for (int e = 0; e < local; e++) {
      for (int r = 0; r < ranks; r++) {
        for (long j = 0; j < fromSource[r][e]; j++) order[i++] = start[r][e] + j;
      }
    }
    return new DispatchPlan(send, recv, order, perExpert);
  }

  /** The inverse permutation of {@link #order}: where each received row's expert output sits. */
  long[] inverse() {
    long[] inv = new long[order.length];
    for (int i = 0; i < order.length; i++) inv[(int) order[i]] = i;
    return inv;
  }
}
