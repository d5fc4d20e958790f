package dev.weft.cuda.nccl;

import dev.weft.comm.CommException;
import dev.weft.comm.ReduceOp;
import dev.weft.cuda.jni.NcclLib;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One NCCL communicator, owned by this object ({@link #close()} destroys it, {@link #abort()} tears it down
 * under a hung peer). Buffers are device addresses; every call only enqueues work on {@code stream}.
 */
public final class NcclComm implements AutoCloseable {
  private final String name;
  private long comm;

  private NcclComm(String name, long comm) {
    this.name = name;
    this.comm = comm;
  }

  /**
   * ncclCommInitRank on a helper thread, so that a peer that never joins costs at most {@code timeout}
   * (NCCL's blocking init cannot be interrupted: on timeout the helper thread is left behind).
   */
  public static NcclComm init(String name, byte[] uniqueId, int rank, int size, Duration timeout) {
    Nccl.require("group " + name);
    if (uniqueId.length != NcclLib.UNIQUE_ID_BYTES) {
      throw new CommException("group " + name + ": an NCCL unique id has " + NcclLib.UNIQUE_ID_BYTES + " bytes, got "
          + uniqueId.length + "; the rendezvous store holds something else under this group's key");
    }
    long[] out = new long[1];
    FutureTask<Integer> task = new FutureTask<>(() -> NcclLib.weft_nccl_comm_init_rank(out, size, uniqueId, rank));
    Thread t = new Thread(task, "nccl-init-" + name + "-" + rank);
    t.setDaemon(true);
    t.start();
    try {
      Nccl.check(task.get(timeout.toMillis(), TimeUnit.MILLISECONDS), "ncclCommInitRank for group " + name
          + " (rank " + rank + " of " + size + ")");
    } catch (TimeoutException e) {
      throw new CommException("group " + name + ": rank " + rank + " of " + size + " waited " + timeout.toSeconds()
          + " s in ncclCommInitRank; not every rank joined (check the other ranks' logs and NCCL_DEBUG=INFO)", e);
    } catch (ExecutionException e) {
      throw new CommException("group " + name + ": ncclCommInitRank threw " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CommException("group " + name + ": interrupted in ncclCommInitRank", e);
    }
    return new NcclComm(name, out[0]);
  }

  public String name() { return name; }

  public static int opCode(ReduceOp op) {
    return switch (op) {
      case SUM -> 0;
      case MAX -> 2;
      case MIN -> 3;
      case AVG -> 4;
    };
  }

  public void allReduce(long send, long recv, long count, NcclDataType type, ReduceOp op, long stream) {
    Nccl.check(NcclLib.weft_nccl_all_reduce(send, recv, count, type.code, opCode(op), handle(), stream), what("allReduce"));
  }

  public void allGather(long send, long recv, long sendCount, NcclDataType type, long stream) {
    Nccl.check(NcclLib.weft_nccl_all_gather(send, recv, sendCount, type.code, handle(), stream), what("allGather"));
  }

  public void reduceScatter(long send, long recv, long recvCount, NcclDataType type, ReduceOp op, long stream) {
    Nccl.check(NcclLib.weft_nccl_reduce_scatter(send, recv, recvCount, type.code, opCode(op), handle(), stream),
        what("reduceScatter"));
  }

  public void broadcast(long send, long recv, long count, NcclDataType type, int root, long stream) {
    Nccl.check(NcclLib.weft_nccl_broadcast(send, recv, count, type.code, root, handle(), stream), what("broadcast"));
  }

  public void send(long buf, long count, NcclDataType type, int peer, long stream) {
    Nccl.check(NcclLib.weft_nccl_send(buf, count, type.code, peer, handle(), stream), what("send to " + peer));
  }

  public void recv(long buf, long count, NcclDataType type, int peer, long stream) {
    Nccl.check(NcclLib.weft_nccl_recv(buf, count, type.code, peer, handle(), stream), what("recv from " + peer));
  }

  /**
   * {@code plan}'s transfers as one NCCL group of sends and receives on {@code stream} (NCCL has no all-to-all):
   * {@code send}/{@code recv} are the flat input/output buffers, offsets are in elements of {@code elementBytes}.
   */
  public void allToAll(AllToAllPlan plan, long send, long recv, NcclDataType type, long elementBytes, long stream) {
    groupStart();
    try {
      plan.issue(new AllToAllPlan.Transfers() {
        @Override public void send(int peer, long offset, long count) { NcclComm.this.send(send + offset * elementBytes, count, type, peer, stream); }
        @Override public void recv(int peer, long offset, long count) { NcclComm.this.recv(recv + offset * elementBytes, count, type, peer, stream); }
      });
    } finally {
      groupEnd();
    }
  }

  public static void groupStart() { Nccl.check(NcclLib.weft_nccl_group_start(), "ncclGroupStart"); }

  public static void groupEnd() { Nccl.check(NcclLib.weft_nccl_group_end(), "ncclGroupEnd"); }

  /** Throws when NCCL reports an asynchronous error (a peer failed or the network broke). */
  public void checkAsyncError() {
    int[] err = new int[1];
    Nccl.check(NcclLib.weft_nccl_comm_get_async_error(handle(), err), what("ncclCommGetAsyncError"));
    if (err[0] != 0) {
      throw new CommException("group " + name + " hit an asynchronous NCCL error " + err[0] + ": "
          + NcclLib.weft_nccl_error_string(err[0]) + " " + NcclLib.weft_nccl_last_error(comm)
          + "; a peer rank probably failed, see its log");
    }
  }

  /** Tears the communicator down without waiting for peers (after a timeout). */
  public void abort() {
    if (comm != 0) {
      long c = comm;
      comm = 0;
      NcclLib.weft_nccl_comm_abort(c);
    }
  }

  private long handle() {
    if (comm == 0) throw new CommException("group " + name + " is closed");
    return comm;
  }

  private String what(String op) { return op + " on group " + name; }

  @Override
  public void close() {
    if (comm != 0) {
      long c = comm;
      comm = 0;
      Nccl.check(NcclLib.weft_nccl_comm_destroy(c), what("ncclCommDestroy"));
    }
  }
}
