package dev.weft.cuda.nccl;

import dev.weft.comm.CommException;
import java.util.Arrays;

/**
 * An all-to-all as point-to-point transfers, in elements of flat buffers: to each peer j, {@code sendCount(j)}
 * elements from {@code sendOffset(j)} of the input; from each peer j, {@code recvCount(j)} elements into
 * {@code recvOffset(j)} of the output. NCCL has no all-to-all of its own: {@link NcclCommunicator} issues this plan as
 * grouped {@code ncclSend}/{@code ncclRecv} (one group, so no order between peers can deadlock). Pure: it validates
 * the {@link dev.weft.comm.Communicator#allToAll} contract (the same first error as Gloo's) and computes offsets.
 */
public record AllToAllPlan(long[] sendOffsets, long[] sendCounts, long[] recvOffsets, long[] recvCounts) {
  /** Where one transfer goes: offsets and counts in elements. */
  public interface Transfers {
    void send(int peer, long offset, long count);

    void recv(int peer, long offset, long count);
  }

  /**
   * The plan for a group {@code name} of {@code size} ranks: {@code in} has {@code inRows} rows (dim 0) of
   * {@code inRowElements} elements, {@code out} likewise; rows are cut by the splits, in rank order.
   */
  public static AllToAllPlan of(String name, int size, long inRows, long inRowElements, long outRows, long outRowElements,
      long[] outSplits, long[] inSplits) {
    if (outSplits.length != size || inSplits.length != size) {
      throw new CommException("allToAll on " + name + ": " + inSplits.length + " send and " + outSplits.length
          + " receive counts for a group of " + size);
    }
    requireCounts(name, "send", inSplits, inRows, "input");
    requireCounts(name, "receive", outSplits, outRows, "output");
    if (inRows > 0 && outRows > 0 && inRowElements != outRowElements) {
      throw new CommException("allToAll on " + name + ": input rows hold " + inRowElements + " elements but output rows "
          + outRowElements + "; both must have the same shape after dim 0");
    }
    return new AllToAllPlan(offsets(inSplits, inRowElements), scaled(inSplits, inRowElements),
        offsets(outSplits, outRowElements), scaled(outSplits, outRowElements));
  }

  /** Hands every non-empty transfer to {@code t}: to and from each peer in rank order, the send first. */
  public void issue(Transfers t) {
    for (int j = 0; j < sendCounts.length; j++) {
      if (sendCounts[j] > 0) t.send(j, sendOffsets[j], sendCounts[j]);
      if (recvCounts[j] > 0) t.recv(j, recvOffsets[j], recvCounts[j]);
    }
  }

  /** Elements this rank sends in all (to itself included). */
  public long sendTotal() { return Arrays.stream(sendCounts).sum(); }

  private static void requireCounts(String name, String what, long[] splits, long rows, String tensor) {
    long sum = 0;
    for (int j = 0; j < splits.length; j++) {
      if (splits[j] < 0) {
        throw new CommException("allToAll on " + name + ": " + what + " count " + splits[j] + " for rank " + j + " is negative");
      }
      sum += splits[j];
    }
    if (sum != rows) {
      throw new CommException("allToAll on " + name + ": the " + what + " counts " + Arrays.toString(splits) + " sum to " + sum
          + " rows but the " + tensor + " has " + rows + " rows (dim 0)");
    }
  }

  private static long[] scaled(long[] splits, long rowElements) {
    return Arrays.stream(splits).map(s -> s * rowElements).toArray();
  }

  private static long[] offsets(long[] splits, long rowElements) {
    long[] out = new long[splits.length];
    for (int j = 1; j < splits.length; j++) out[j] = out[j - 1] + splits[j - 1] * rowElements;
    return out;
  }
}
