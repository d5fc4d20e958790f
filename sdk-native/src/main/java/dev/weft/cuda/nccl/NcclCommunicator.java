package dev.weft.cuda.nccl;

import dev.weft.comm.CommException;
import dev.weft.comm.Communicator;
import dev.weft.comm.PendingOp;
import dev.weft.comm.RankDevice;
import dev.weft.comm.ReduceOp;
import dev.weft.cuda.CudaEvent;
import dev.weft.cuda.CudaRuntime;
import dev.weft.cuda.CudaStream;
import dev.weft.cuda.DeviceBuffer;
import dev.weft.cuda.streams.CollectiveOrder;
import dev.weft.cuda.streams.CudaStreamOps;
import java.time.Duration;
import org.bytedeco.pytorch.Tensor;

/**
 * {@link Communicator} over NCCL for libtorch CUDA tensors. Collectives run on this group's own non-blocking stream,
 * ordered with libtorch's default stream through events ({@link CollectiveOrder}): each waits for the compute queued
 * before it, compute queued after it runs alongside (backward overlaps the gradient reduction), and compute queued
 * after an await reads its result. NCCL has no message tags: sends and receives between two ranks match in the
 * order they are issued. Host tensors are staged through the group's device ({@link HostStaging}).
 */
public final class NcclCommunicator implements Communicator {
  private final String name;
  private final int rank;
  private final int size;
  private final Duration timeout;
  private final NcclComm comm;
  private final CudaStream stream;
  private final DeviceBuffer barrierWord;
  private final CollectiveOrder<Long, CudaEvent> order;
  private final HostStaging staging;
  private final RankDevice device;

  /** Without a libtorch device: CUDA tensors only (host tensors are refused). */
  public NcclCommunicator(String name, int rank, int size, Duration timeout, NcclComm comm) {
    this(name, rank, size, timeout, comm, null);
  }

  /** On {@code device} ({@code cuda:i}, the device the communicator was initialised on): host tensors are staged there. */
  public NcclCommunicator(String name, int rank, int size, Duration timeout, NcclComm comm, RankDevice device) {
    this.name = name;
    this.rank = rank;
    this.size = size;
    this.timeout = timeout;
    this.comm = comm;
    this.device = device;
    this.staging = new HostStaging(device);
    this.stream = CudaStream.createNonBlocking();
    this.barrierWord = DeviceBuffer.allocate(4);
    this.order = new CollectiveOrder<>(new CudaStreamOps(), CudaStreamOps.LIBTORCH_DEFAULT_STREAM, stream.handle(), name,
        "rank " + rank + " of " + size, timeout, new CollectiveOrder.Watch() {
          @Override public void check() { comm.checkAsyncError(); }
          @Override public void abort() { comm.abort(); }
        });
  }

  @Override public String name() { return name; }
  @Override public int rank() { return rank; }
  @Override public int size() { return size; }
  @Override public Duration timeout() { return timeout; }

  @Override
  public PendingOp allReduceAsync(Tensor host, ReduceOp op) {
    Tensor t = stage(host);
    long a = address(t, "allReduce");
    return HostStaging.back(order.launch("allReduce", () -> comm.allReduce(a, a, t.numel(), type(t), op, stream.handle())), host, t);
  }

  @Override
  public PendingOp allGatherAsync(Tensor hostOut, Tensor hostIn) {
    requireNumel(hostOut, hostIn.numel() * size, "allGather output");
    Tensor in = stage(hostIn), out = stage(hostOut);
    long src = address(in, "allGather"), dst = address(out, "allGather");
    return HostStaging.back(order.launch("allGather", () -> comm.allGather(src, dst, in.numel(), type(in), stream.handle())),
        hostOut, out);
  }

  @Override
  public PendingOp reduceScatterAsync(Tensor hostOut, Tensor hostIn) {
    requireNumel(hostIn, hostOut.numel() * size, "reduceScatter input");
    Tensor in = stage(hostIn), out = stage(hostOut);
    long src = address(in, "reduceScatter"), dst = address(out, "reduceScatter");
    return HostStaging.back(order.launch("reduceScatter",
        () -> comm.reduceScatter(src, dst, out.numel(), type(in), ReduceOp.SUM, stream.handle())), hostOut, out);
  }

  /**
   * NCCL has no all-to-all: one group of {@code ncclSend}/{@code ncclRecv} per peer ({@link AllToAllPlan}), on this
   * group's stream; a rank's transfer to itself is a send and a receive in the same group.
   */
  @Override
  public PendingOp allToAllAsync(Tensor hostOut, Tensor hostIn, long[] outSplits, long[] inSplits) {
    AllToAllPlan plan = AllToAllPlan.of(name, size, rows(hostIn), rowElements(hostIn), rows(hostOut), rowElements(hostOut),
        outSplits, inSplits);
    if (hostIn.scalar_type() != hostOut.scalar_type()) {
      throw new CommException("allToAll on group " + name + ": input is " + hostIn.scalar_type() + " but output "
          + hostOut.scalar_type() + "; both must have one dtype");
    }
    Tensor in = stage(hostIn), out = stage(hostOut);
    long src = address(in, "allToAll"), dst = address(out, "allToAll"), bytes = in.element_size();
    NcclDataType type = type(in);
    PendingOp done = HostStaging.back(order.launch("allToAll", () -> comm.allToAll(plan, src, dst, type, bytes, stream.handle())),
        hostOut, out);
    return () -> {
      done.await();
      in.numel(); // holds a staged input until the sends completed
    };
  }

  private static long rows(Tensor t) { return t.dim() == 0 ? 1 : t.size(0); }

  /** Elements per row: the product of the sizes after dim 0. */
  private static long rowElements(Tensor t) {
    long n = 1;
    for (int d = 1; d < t.dim(); d++) n *= t.size(d);
    return n;
  }

  @Override
  public void broadcast(Tensor host, int root) {
    Tensor t = stage(host);
    long a = address(t, "broadcast");
    HostStaging.back(order.launch("broadcast from " + root, () -> comm.broadcast(a, a, t.numel(), type(t), root, stream.handle())),
        host, t).await();
  }

  @Override
  public PendingOp sendAsync(Tensor host, int dst, int tag) {
    Tensor t = stage(host);
    long a = address(t, "send");
    // a staged copy must live until the send completed: the await that copies it back holds it (same bytes)
    return HostStaging.back(order.launch("send to " + dst, () -> comm.send(a, t.numel(), type(t), dst, stream.handle())), host, t);
  }

  @Override
  public PendingOp recvAsync(Tensor host, int src, int tag) {
    Tensor t = stage(host);
    long a = address(t, "recv");
    return HostStaging.back(order.launch("recv from " + src, () -> comm.recv(a, t.numel(), type(t), src, stream.handle())), host, t);
  }

  @Override
  public void barrier() {
    long a = barrierWord.address();
    order.launch("barrier", () -> comm.allReduce(a, a, 1, NcclDataType.INT32, ReduceOp.SUM, stream.handle())).await();
  }

  /**
   * {@code t} ready for NCCL on this group's device, which is also made current for this thread: collectives are
   * launched from autograd hooks, and libtorch runs a CUDA backward on its own device thread, whose current device in
   * Weft's (static) CUDA runtime is otherwise 0.
   */
  private Tensor stage(Tensor t) {
    if (device != null) CudaRuntime.setDevice(device.index());
    return staging.in(t);
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
    order.close();
    barrierWord.close();
    stream.close();
    comm.close();
  }
}
