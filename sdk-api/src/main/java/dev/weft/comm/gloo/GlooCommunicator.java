package dev.weft.comm.gloo;

import dev.weft.comm.CommException;
import dev.weft.comm.Communicator;
import dev.weft.comm.NativeRelease;
import dev.weft.comm.PendingOp;
import dev.weft.comm.ReduceOp;
import dev.weft.comm.Rendezvous;
import dev.weft.comm.Retained;
import java.time.Duration;
import java.util.function.Supplier;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.chrono.Milliseconds;
import org.bytedeco.pytorch.AllreduceOptions;
import org.bytedeco.pytorch.BroadcastOptions;
import org.bytedeco.pytorch.GlooDeviceVector;
import org.bytedeco.pytorch.LongVector;
import org.bytedeco.pytorch.ProcessGroupGloo;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Store;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.Work;
import org.bytedeco.pytorch.gloo.attr;
import org.bytedeco.pytorch.global.torch_gloo;

/**
 * A Gloo process group on its own prefix of the rendezvous store. The group owns its native objects: {@link #close}
 * destroys them (its worker threads, its device's loop thread and its sockets) once every member is past its last
 * collective ({@link dev.weft.comm.Distributed#close} waits for that).
 */
public final class GlooCommunicator implements Communicator {
  /** How long {@link #close} waits for the group's destructor (it finishes an operation still in flight first). */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  private final String name;
  private final int rank;
  private final int size;
  private final Duration timeout;
  private final ProcessGroupGloo pg;
  private boolean closed;

  private GlooCommunicator(String name, int rank, int size, Duration timeout, ProcessGroupGloo pg) {
    this.name = name;
    this.rank = rank;
    this.size = size;
    this.timeout = timeout;
    this.pg = pg;
  }

  static GlooCommunicator create(Rendezvous store, String name, int rank, int size, Duration timeout) {
    GlooDeviceVector devices;
    try {
      // Bind to this rank's own host address: peers on other hosts connect to what each rank advertises.
      org.bytedeco.pytorch.gloo.Device device = torch_gloo.CreateDevice(new attr(store.localAddress()));
      devices = new GlooDeviceVector(device);
      device.deallocate(); // the vector holds its own reference; the device's loop thread ends with the last one
    } catch (RuntimeException e) {
      throw new CommException("group " + name + ": rank " + rank + " cannot bind to " + store.localAddress()
          + ", which is not an address of this host (" + firstLine(e) + "); pass --node-addr (or set WEFT_NODE_ADDR) to it", e);
    }
    ProcessGroupGloo.Options o = new ProcessGroupGloo.Options(new Milliseconds(timeout.toMillis()));
    Store prefixed = store.prefixed(name + "/");
    try {
      o.devices(devices);
      o.threads(2);
      ProcessGroupGloo pg = Retained.keep(new ProcessGroupGloo(prefixed, rank, size, o));
      return new GlooCommunicator(name, rank, size, timeout, pg);
    } catch (RuntimeException e) {
      throw new CommException("group " + name + ": rank " + rank + " of " + size + " could not connect to its peers within "
          + timeout.toSeconds() + " s (" + firstLine(e) + "); check that every rank started, can reach " + store.host()
          + " and that this host's address " + store.localAddress() + " is reachable from the others (--node-addr / WEFT_NODE_ADDR)", e);
    } finally {
      prefixed.deallocate(false); // native code took it over (even when the group failed): Java must never delete it too
      o.deallocate(); // the group holds its own references to its options and devices
      devices.deallocate();
    }
  }

  @Override public String name() { return name; }
  @Override public int rank() { return rank; }
  @Override public int size() { return size; }
  @Override public Duration timeout() { return timeout; }

  @Override
  public PendingOp allReduceAsync(Tensor t, ReduceOp op) {
    if (size == 1) return PendingOp.DONE;
    org.bytedeco.pytorch.ReduceOp.RedOpType type = switch (op) {
      case SUM, AVG -> org.bytedeco.pytorch.ReduceOp.RedOpType.SUM;
      case MAX -> org.bytedeco.pytorch.ReduceOp.RedOpType.MAX;
      case MIN -> org.bytedeco.pytorch.ReduceOp.RedOpType.MIN;
    };
    Work w = call("allReduce", () -> pg.allreduce(new TensorVector(t),
        new AllreduceOptions().reduceOp(new org.bytedeco.pytorch.ReduceOp(type))));
    PendingOp p = pending("allReduce", w, t);
    if (op != ReduceOp.AVG) return p;
    return () -> {
      p.await();
      t.div_(new Scalar((double) size));
    };
  }

  @Override
  public PendingOp allGatherAsync(Tensor out, Tensor in) {
    if (size == 1) {
      out.copy_(in.reshape(out.sizes()));
      return PendingOp.DONE;
    }
    return pending("allGather", call("allGather", () -> pg._allgather_base(out, in)), out, in);
  }

  @Override
  public PendingOp reduceScatterAsync(Tensor out, Tensor in) {
    if (size == 1) {
      out.copy_(in.reshape(out.sizes()));
      return PendingOp.DONE;
    }
    return pending("reduceScatter", call("reduceScatter", () -> pg._reduce_scatter_base(out, in)), out, in);
  }

  @Override
  public PendingOp allToAllAsync(Tensor out, Tensor in, long[] outSplits, long[] inSplits) {
    if (outSplits.length != size || inSplits.length != size) {
      throw new CommException("allToAll on " + name + ": " + inSplits.length + " send and " + outSplits.length
          + " receive counts for a group of " + size);
    }
    if (size == 1) {
      out.copy_(in.reshape(out.sizes()));
      return PendingOp.DONE;
    }
    return pending("allToAll", call("allToAll", () -> pg.alltoall_base(out, in, new LongVector(outSplits), new LongVector(inSplits))), out, in);
  }

  @Override
  public void broadcast(Tensor t, int root) {
    if (size == 1) return;
    pending("broadcast", call("broadcast", () -> pg.broadcast(new TensorVector(t), new BroadcastOptions().rootRank(root)))).await();
  }

  @Override
  public PendingOp sendAsync(Tensor t, int dst, int tag) {
    return pending("send to " + dst, call("send", () -> pg.send(new TensorVector(t), dst, tag)), t);
  }

  @Override
  public PendingOp recvAsync(Tensor t, int src, int tag) {
    return pending("recv from " + src, call("recv", () -> pg.recv(new TensorVector(t), src, tag)), t);
  }

  @Override
  public void barrier() {
    if (size == 1) return;
    pending("barrier", call("barrier", pg::barrier)).await();
  }

  private Work call(String op, Supplier<Work> f) {
    try {
      return f.get();
    } catch (RuntimeException e) {
      throw failure(op, e);
    }
  }

  /**
   * The operation's handle and its tensors are retained until it is awaited: a caller inside a
   * PointerScope that closes first (a pipeline action, an autograd hook) must not free them while
   * Gloo still works on them.
   */
  private PendingOp pending(String op, Work w, Tensor... args) {
    // only scope-owned objects (reference count > 0) are at risk; unscoped ones stay alive through this lambda
    Pointer[] held = java.util.stream.Stream.concat(java.util.stream.Stream.of(w), java.util.Arrays.stream(args))
        .filter(p -> p.referenceCount() > 0).toArray(Pointer[]::new);
    for (Pointer p : held) p.retainReference();
    return new PendingOp() {
      private boolean done;

      @Override
      public void await() {
        if (done) return;
        try {
          if (!w._wait(new Milliseconds(timeout.toMillis()))) {
            throw new CommException(op + " on group " + name + " did not complete within " + timeout.toSeconds()
                + " s: a peer rank is gone or stuck; see the other ranks' logs");
          }
        } catch (CommException e) {
          throw e;
        } catch (RuntimeException e) {
          throw failure(op, e);
        } finally {
          done = true;
          for (Pointer p : held) p.releaseReference();
          if (w.referenceCount() == 0) w.deallocate(); // an unscoped handle holds the group's context until freed
        }
      }
    };
  }

  private CommException failure(String op, RuntimeException e) {
    return new CommException(op + " on group " + name + " (rank " + rank + " of " + size + ") failed: " + firstLine(e)
        + "; a peer rank exited or stopped making progress (hung); weft names which, else see the peers' logs", e);
  }

  private static String firstLine(Throwable e) {
    String m = String.valueOf(e.getMessage()).strip();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  /**
   * Destroys the group. Call it only when every member is past its last collective: a peer still inside one would
   * wait for this rank until its timeout. Waits at most {@link #CLOSE_WAIT} (an operation still in flight is
   * finished first, up to the group's timeout): past it the destruction goes on in the background.
   */
  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    Retained.release(pg);
    NativeRelease.within("group " + name, CLOSE_WAIT.compareTo(timeout) < 0 ? CLOSE_WAIT : timeout, pg::deallocate);
  }
}
