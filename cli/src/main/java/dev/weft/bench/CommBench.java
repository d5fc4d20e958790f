package dev.weft.bench;

import dev.weft.comm.Communicator;
import dev.weft.comm.Rendezvous;
import dev.weft.comm.Retained;
import dev.weft.comm.gloo.GlooBackend;
import dev.weft.launch.ThreadedRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.javacpp.chrono.Milliseconds;
import org.bytedeco.pytorch.GlooDeviceVector;
import org.bytedeco.pytorch.ProcessGroupGloo;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.gloo.attr;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch_gloo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All-reduce bandwidth of Weft's {@link Communicator} against a raw {@code ProcessGroupGloo}
 * ({@code allreduce} + {@code _wait}) created exactly as {@code GlooCommunicator} creates its own
 * (same options, two Gloo threads), on a separate prefix of the same store. Two ranks as threads
 * of this JVM over loopback. For each size the two alternate operation by operation (A/B, then B/A),
 * {@code bytesPerVariant} in all (at least six operations) each; every operation is timed on rank 0
 * from the call to the end of the wait, and the bandwidth is the size over the median time.
 */
public final class CommBench {
  private static final Logger log = LoggerFactory.getLogger(CommBench.class);

  /** One tensor size: bytes, and per operation the seconds of each all-reduce through Weft and raw Gloo. */
  public record SizeResult(long bytes, double[] weftSeconds, double[] rawSeconds) {
    public double weftGiBps() { return bytes / Stats.median(weftSeconds) / (1L << 30); }
    public double rawGiBps() { return bytes / Stats.median(rawSeconds) / (1L << 30); }
  }

  private CommBench() {}

  public static List<SizeResult> measure(long[] sizesBytes, long bytesPerVariant) {
    Duration timeout = Duration.ofSeconds(120);
    List<List<SizeResult>> perRank = ThreadedRun.onRanks(2, timeout, id -> {
      Rendezvous store = Rendezvous.connect(id.masterAddr(), id.masterPort(), id.rank(), id.rank() == 0, timeout);
      Communicator weft = new GlooBackend().createGroup(store, "bench-weft", id.rank(), 2, timeout);
      ProcessGroupGloo raw = rawGroup(store, "bench-raw/", id.rank(), 2, timeout);
      List<SizeResult> out = new ArrayList<>();
      for (long bytes : sizesBytes) out.add(oneSize(weft, raw, bytes, bytesPerVariant));
      return out;
    });
    List<SizeResult> r = perRank.get(0);
    for (SizeResult s : r) {
      log.debug("allreduce {} B: weft {} GiB/s, raw {} GiB/s", s.bytes(), s.weftGiBps(), s.rawGiBps());
    }
    return r;
  }

  /** A Gloo group built the way {@code GlooCommunicator.create} builds one. */
  static ProcessGroupGloo rawGroup(Rendezvous store, String prefix, int rank, int size, Duration timeout) {
    ProcessGroupGloo.Options o = new ProcessGroupGloo.Options(new Milliseconds(timeout.toMillis()));
    o.devices(new GlooDeviceVector(torch_gloo.CreateDevice(new attr(store.localAddress()))));
    o.threads(2);
    return Retained.keep(new ProcessGroupGloo(store.prefixed(prefix), rank, size, o));
  }

  private static SizeResult oneSize(Communicator weft, ProcessGroupGloo raw, long bytes, long bytesPerVariant) {
    // zeros stay zeros under repeated sums (no overflow to inf over many iterations)
    Tensor x = torch.zeros(bytes / 4);
    int n = (int) Math.max(6, bytesPerVariant / bytes);
    double[] w = new double[n], r = new double[n];
    try (PointerScope scope = new PointerScope()) {
      for (int i = 0; i < 2; i++) { // warm-up
        weft.allReduce(x);
        raw.allreduce(new TensorVector(x))._wait();
      }
      raw.barrier()._wait();
    }
    for (int i = 0; i < n; i++) {
      try (PointerScope scope = new PointerScope()) {
        if (i % 2 == 0) {
          w[i] = viaWeft(weft, x);
          r[i] = viaRaw(raw, x);
        } else {
          r[i] = viaRaw(raw, x);
          w[i] = viaWeft(weft, x);
        }
      }
    }
    x.close();
    return new SizeResult(bytes, w, r);
  }

  private static double viaWeft(Communicator weft, Tensor x) {
    long t0 = System.nanoTime();
    weft.allReduce(x);
    return (System.nanoTime() - t0) / 1e9;
  }

  private static double viaRaw(ProcessGroupGloo raw, Tensor x) {
    long t0 = System.nanoTime();
    raw.allreduce(new TensorVector(x))._wait();
    return (System.nanoTime() - t0) / 1e9;
  }

  public static List<BenchRow> rows(List<SizeResult> results) {
    List<BenchRow> rows = new ArrayList<>();
    for (SizeResult s : results) {
      double[] pair = Stats.ratios(s.rawSeconds(), s.weftSeconds()); // bandwidth ratio = time ratio inverted
      rows.add(BenchRow.paired("comm", "allreduce " + size(s.bytes()) + " fp32, 2 ranks: Weft vs raw Gloo", s.weftGiBps(),
          s.rawGiBps(), "GiB/s", pair, "≥ 0.95", ""));
    }
    return rows;
  }

  static String size(long bytes) {
    return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : String.format(Locale.ROOT, "%d KiB", bytes >> 10);
  }
}
