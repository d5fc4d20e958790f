package dev.weft.comm;

import java.time.Duration;
import org.bytedeco.pytorch.Tensor;

/**
 * Collectives over one group of ranks. Ranks are numbered inside the group (0..size-1). Every
 * blocking call waits at most {@link #timeout()} and then throws {@link CommException} naming the
 * group and the operation. Tensors are contiguous; results are written in place.
 */
public interface Communicator extends AutoCloseable {
  /** A readable name such as {@code dp[0,2]}, used in errors. */
  String name();

  int rank();

  int size();

  Duration timeout();

  PendingOp allReduceAsync(Tensor t, ReduceOp op);

  default void allReduce(Tensor t, ReduceOp op) { allReduceAsync(t, op).await(); }

  default void allReduce(Tensor t) { allReduce(t, ReduceOp.SUM); }

  /** {@code out} (size × in.numel) receives every rank's {@code in}, concatenated in rank order along dim 0. */
  PendingOp allGatherAsync(Tensor out, Tensor in);

  default void allGather(Tensor out, Tensor in) { allGatherAsync(out, in).await(); }

  /** {@code in} holds size equal chunks along dim 0; rank r receives the sum of every rank's chunk r. */
  PendingOp reduceScatterAsync(Tensor out, Tensor in);

  default void reduceScatter(Tensor out, Tensor in) { reduceScatterAsync(out, in).await(); }

  /**
   * Each rank sends rows of {@code in} (dim 0, in order) to every rank: {@code inSplits[j]} rows to rank j; and
   * receives {@code outSplits[j]} rows from rank j into {@code out}, in rank order. Counts may differ between ranks
   * and be zero (a dropless expert dispatch); every rank's {@code inSplits[j]} must equal rank j's {@code outSplits}
   * entry for it.
   */
  PendingOp allToAllAsync(Tensor out, Tensor in, long[] outSplits, long[] inSplits);

  default void allToAll(Tensor out, Tensor in, long[] outSplits, long[] inSplits) { allToAllAsync(out, in, outSplits, inSplits).await(); }

  void broadcast(Tensor t, int root);

  PendingOp sendAsync(Tensor t, int dst, int tag);

  PendingOp recvAsync(Tensor t, int src, int tag);

  default void send(Tensor t, int dst, int tag) { sendAsync(t, dst, tag).await(); }

  default void recv(Tensor t, int src, int tag) { recvAsync(t, src, tag).await(); }

  void barrier();

  @Override
  void close();
}
