package dev.weft.comm;

import java.time.Duration;
import org.bytedeco.pytorch.Tensor;

/** A group of one rank: every collective is the identity. Saves a connection for dimensions of size 1. */
public final class SoloCommunicator implements Communicator {
  private final String name;

  public SoloCommunicator(String name) { this.name = name; }

  @Override public String name() { return name; }
  @Override public int rank() { return 0; }
  @Override public int size() { return 1; }
  @Override public Duration timeout() { return Duration.ZERO; }
  @Override public PendingOp allReduceAsync(Tensor t, ReduceOp op) { return PendingOp.DONE; }

  @Override
  public PendingOp allGatherAsync(Tensor out, Tensor in) {
    out.copy_(in.reshape(out.sizes()));
    return PendingOp.DONE;
  }

  @Override
  public PendingOp reduceScatterAsync(Tensor out, Tensor in) {
    out.copy_(in.reshape(out.sizes()));
    return PendingOp.DONE;
  }

  @Override
  public PendingOp allToAllAsync(Tensor out, Tensor in, long[] outSplits, long[] inSplits) {
    out.copy_(in.reshape(out.sizes()));
    return PendingOp.DONE;
  }

  @Override public void broadcast(Tensor t, int root) {}

  @Override
  public PendingOp sendAsync(Tensor t, int dst, int tag) {
    throw new CommException("send on " + name + ": a group of one rank has no peer to send to");
  }

  @Override
  public PendingOp recvAsync(Tensor t, int src, int tag) {
    throw new CommException("recv on " + name + ": a group of one rank has no peer to receive from");
  }

  @Override public void barrier() {}
  @Override public void close() {}
}
