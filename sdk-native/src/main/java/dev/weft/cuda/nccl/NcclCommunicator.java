package dev.weft.cuda.nccl;

import dev.weft.comm.CommException;
import dev.weft.comm.Communicator;
import dev.weft.comm.PendingOp;
import dev.weft.comm.ReduceOp;
import dev.weft.cuda.CudaEvent;
import dev.weft.cuda.CudaStream;
import dev.weft.cuda.DeviceBuffer;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.bytedeco.pytorch.Tensor;

/**
 * {@link Communicator} over NCCL for libtorch CUDA tensors. Collectives run on this group's own blocking stream,
 * so they follow earlier work on libtorch's default stream and precede later work there. NCCL has no message tags:
 * sends and receives between two ranks match in the order they are issued.
 */
public final class NcclCommunicator implements Communicator {
  private final String name;
  private final int rank;
  private final int size;
  private final Duration timeout;
  private final NcclComm comm;
  private final CudaStream stream;
  private final DeviceBuffer barrierWord;
  private final Set<CudaEvent> inFlight = Collections.newSetFromMap(new IdentityHashMap<>());

  public NcclCommunicator(String name, int rank, int size, Duration timeout, NcclComm comm) {
    this.name = name;
    this.rank = rank;
    this.size = size;
    this.timeout = timeout;
    this.comm = comm;
    this.stream = CudaStream.create();
    this.barrierWord = DeviceBuffer.allocate(4);
  }

  @Override public String name() { return name; }
  @Override public int rank() { return rank; }
  @Override public int size() { return size; }
  @Override public Duration timeout() { return timeout; }

  @Override
  public PendingOp allReduceAsync(Tensor t, ReduceOp op) {
    long a = address(t, "allReduce");
    comm.allReduce(a, a, t.numel(), type(t), op, stream.handle());
    return pending("allReduce");
  }

  @Override
  public PendingOp allGatherAsync(Tensor out, Tensor in) {
    requireNumel(out, in.numel() * size, "allGather output");
    comm.allGather(address(in, "allGather"), address(out, "allGather"), in.numel(), type(in), stream.handle());
    return pending("allGather");
  }

  @Override
  public PendingOp reduceScatterAsync(Tensor out, Tensor in) {
    requireNumel(in, out.numel() * size, "reduceScatter input");
    comm.reduceScatter(address(in, "reduceScatter"), address(out, "reduceScatter"), out.numel(), type(in),
        ReduceOp.SUM, stream.handle());
    return pending("reduceScatter");
  }

  @Override
  public void broadcast(Tensor t, int root) {
    long a = address(t, "broadcast");
    comm.broadcast(a, a, t.numel(), type(t), root, stream.handle());
    pending("broadcast from " + root).await();
  }

  @Override
  public PendingOp sendAsync(Tensor t, int dst, int tag) {
    comm.send(address(t, "send"), t.numel(), type(t), dst, stream.handle());
    return pending("send to " + dst);
  }

  @Override
  public PendingOp recvAsync(Tensor t, int src, int tag) {
    comm.recv(address(t, "recv"), t.numel(), type(t), src, stream.handle());
    return pending("recv from " + src);
  }

  @Override
  public void barrier() {
    comm.allReduce(barrierWord.address(), barrierWord.address(), 1, NcclDataType.INT32, ReduceOp.SUM, stream.handle());
    pending("barrier").await();
  }

  private PendingOp pending(String op) {
    CudaEvent done = CudaEvent.create().record(stream);
    synchronized (inFlight) {
      inFlight.add(done);
    }
    return () -> {
      try {
        awaitEvent(done, op);
      } finally {
        synchronized (inFlight) {
          if (inFlight.remove(done)) done.close();
        }
      }
    };
  }

  private void awaitEvent(CudaEvent done, String op) {
    long end = System.nanoTime() + timeout.toNanos();
    while (!done.isDone()) {
      comm.checkAsyncError();
      if (System.nanoTime() > end) {
        comm.abort();
        throw new CommException(op + " on group " + name + " (rank " + rank + " of " + size + ") did not complete within "
            + timeout.toSeconds() + " s; the communicator was aborted. A peer rank is gone or stuck: see its log");
      }
      java.util.concurrent.locks.LockSupport.parkNanos(50_000);
    }
  }

  private long address(Tensor t, String op) {
    if (!t.is_cuda()) {
      throw new CommException(op + " on group " + name + ": the tensor is on " + t.device().str().getString()
          + " but NCCL groups need CUDA tensors; create tensors on the CUDA device (device: cuda)");
    }
    if (!t.is_contiguous()) throw new CommException(op + " on group " + name + ": the tensor is not contiguous; call contiguous()");
    return t.data_ptr().address();
  }

  private NcclDataType type(Tensor t) { return NcclDataType.of(t.scalar_type()); }

  private void requireNumel(Tensor t, long expected, String what) {
    if (t.numel() != expected) {
      throw new CommException(what + " on group " + name + " has " + t.numel() + " elements, expected " + expected
          + " (group size " + size + ")");
    }
  }

  @Override
  public void close() {
    synchronized (inFlight) {
      inFlight.forEach(CudaEvent::close);
      inFlight.clear();
    }
    barrierWord.close();
    stream.close();
    comm.close();
  }
}
