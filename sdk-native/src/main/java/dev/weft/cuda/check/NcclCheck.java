package dev.weft.cuda.check;

import dev.weft.comm.ReduceOp;
import dev.weft.cuda.CudaStream;
import dev.weft.cuda.nccl.AllToAllPlan;
import dev.weft.cuda.nccl.Nccl;
import dev.weft.cuda.nccl.NcclComm;
import dev.weft.cuda.nccl.NcclDataType;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A single-rank NCCL communicator: init from a unique id, every collective Weft uses (all-to-all included), destroy. */
public final class NcclCheck {
  private static final long N = (1 << 20) + 7;
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final CudaStream stream;
  private final RandomData random = new RandomData(7);

  public NcclCheck(CudaStream stream) { this.stream = stream; }

  public List<CheckResult> runAll() {
    List<CheckResult> out = new ArrayList<>();
    Nccl.Status s = Nccl.status();
    out.add(CheckResult.of("nccl load", s.loaded(), s.describe()));
    if (!s.loaded()) return out;
    try (NcclComm comm = NcclComm.init("gpu-check", Nccl.uniqueId(), 0, 1, WAIT);
         Mirror a = new Mirror(4 * N); Mirror b = new Mirror(4 * N)) {
      out.add(CheckResult.of("nccl init rank 0 of 1", true, "unique id of 128 bytes"));
      random.gaussian(a.host, 1);
      a.upload();
      long st = stream.handle();
      out.add(roundTrip("allReduce sum", a, b, () -> comm.allReduce(a.deviceAddress(), b.deviceAddress(), N,
          NcclDataType.FLOAT32, ReduceOp.SUM, st)));
      out.add(roundTrip("allReduce avg", a, b, () -> comm.allReduce(a.deviceAddress(), b.deviceAddress(), N,
          NcclDataType.FLOAT32, ReduceOp.AVG, st)));
      out.add(roundTrip("allGather", a, b, () -> comm.allGather(a.deviceAddress(), b.deviceAddress(), N,
          NcclDataType.FLOAT32, st)));
      out.add(roundTrip("reduceScatter", a, b, () -> comm.reduceScatter(a.deviceAddress(), b.deviceAddress(), N,
          NcclDataType.FLOAT32, ReduceOp.SUM, st)));
      out.add(roundTrip("broadcast", a, b, () -> comm.broadcast(a.deviceAddress(), b.deviceAddress(), N,
          NcclDataType.FLOAT32, 0, st)));
      out.add(roundTrip("send/recv to self (group)", a, b, () -> {
        NcclComm.groupStart();
        comm.send(a.deviceAddress(), N, NcclDataType.FLOAT32, 0, st);
        comm.recv(b.deviceAddress(), N, NcclDataType.FLOAT32, 0, st);
        NcclComm.groupEnd();
      }));
      AllToAllPlan whole = AllToAllPlan.of("gpu-check", 1, N, 1, N, 1, new long[] {N}, new long[] {N});
      out.add(roundTrip("allToAll (grouped send/recv to self)", a, b, () -> comm.allToAll(whole, a.deviceAddress(),
          b.deviceAddress(), NcclDataType.FLOAT32, 4, st)));
      comm.checkAsyncError();
    }
    out.add(CheckResult.of("nccl destroy", true, "communicator destroyed"));
    return out;
  }

  /** Clears {@code b}, runs {@code op} (which fills b from a), and checks that b equals a bit for bit. */
  private CheckResult roundTrip(String name, Mirror a, Mirror b, Runnable op) {
    b.device.copyFrom(Mirror.addressOf(ByteBuffer.allocateDirect(b.host.capacity())), b.host.capacity());
    op.run();
    stream.synchronize(WAIT, "nccl " + name);
    long bad = Compare.floatMismatches(b.download(), a.host);
    return CheckResult.of("nccl " + name + " n=" + N, bad == 0, "elements that differ from the input: " + bad);
  }
}
