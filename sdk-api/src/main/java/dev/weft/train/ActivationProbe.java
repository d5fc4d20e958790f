package dev.weft.train;

import dev.weft.metrics.ProcessMemory;
import dev.weft.comm.Communicator;
import dev.weft.comm.ReduceOp;
import dev.weft.util.Tensors;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.pytorch.Tensor;

/**
 * The activation memory one rank really holds: the process's resident bytes at the end of a forward pass less
 * those before it, on the first micro-batch of the run's second to fourth steps (metrics.jsonl's {@code
 * activation_mib}; CPU only, a device's activations are not resident here; only when {@link #enabled}). At that point everything forward
 * allocated and still holds lives until backward: what autograd saved (the quantity {@link
 * dev.weft.plan.RankPlan#activations} plans), the logits and loss, and the temporaries whose Java handles the step's
 * PointerScope keeps. Why resident bytes and not a counter: libtorch's CPU allocator keeps no statistics and its
 * saved-tensor hooks take Python objects only. Under glibc's malloc, which keeps freed chunks resident,
 * {@code malloc_trim} before each reading hands them back; jemalloc (the workers' allocator where installed) is told
 * by {@link #WORKER_ENV} to hand freed pages back at once. So neither the previous step's freed
 * gradients nor forward's freed temporaries count, and a collection first frees the native memory of handles
 * already unreachable (an earlier run's model in this JVM) so that it is not released mid-forward. What remains
 * is the JVM's own growth over one forward (a few MiB at most; the median of the readings drops a stray one).
 * Ranks as threads share one resident set, so the world measures together: barriers around the readings (every
 * rank's forward lies between them), one reader per process, and the readings summed over the world and divided
 * by its size — the mean per rank, which is each rank's where ranks are alike (dp, cp, tp).
 */
public final class ActivationProbe {
  /**
   * The environment of a worker process that measures: the switch, and jemalloc's decay set to 0 (else it keeps freed
   * pages resident ~10 s, and a step's forward reuses the previous step's instead of growing: a plan-vs-measured
   * ratio of 0.56 read 0.34).
   */
  public static final java.util.Map<String, String> WORKER_ENV =
      java.util.Map.of("WEFT_ACTIVATION_PROBE", "1", "MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0");

  private static final AtomicBoolean READER_TAKEN = new AtomicBoolean(); // this process's reader of the current round
  private Communicator world;
  private boolean reader;
  private long before;
  private double mib = Double.NaN;

  ActivationProbe() {}

  /** The next {@link #start}/{@link #end} pair measures; every rank of {@code world} arms the same step. */
  void arm(Communicator world) { this.world = world; }

  void start() {
    if (world == null) return;
    world.barrier();
    reader = READER_TAKEN.compareAndSet(false, true);
    if (reader) {
      System.gc(); // native memory of unreachable handles (an earlier run's model in this JVM) is freed now, not mid-forward
      Pointer.deallocateReferences();
      before = residentAfterTrim();
    }
    world.barrier();
  }

  void end() {
    if (world == null) return;
    world.barrier();
    Tensor grown = Tensors.ofDoubles(new double[] {reader ? residentAfterTrim() - before : 0});
    if (reader) READER_TAKEN.set(false); // every rank of the process took its turn before the barrier above
    world.allReduce(grown, ReduceOp.SUM);
    mib = Tensors.toDoubles(grown)[0] / world.size() / (1 << 20);
    world = null;
  }

  /** {@code metrics} with {@code activation_mib} added once a measurement was taken (and then forgotten). */
  Map<String, Double> with(Map<String, Double> metrics) {
    if (Double.isNaN(mib)) return metrics;
    Map<String, Double> out = new LinkedHashMap<>(metrics);
    out.put("activation_mib", mib);
    mib = Double.NaN;
    return out;
  }

  /**
   * Whether runs in this process measure: {@code WEFT_ACTIVATION_PROBE=1} in the environment of a worker process.
   * Never in a JVM that runs other work: there JavaCPP's deallocator frees earlier runs' tensors during the measured
   * forward, and the difference read can be anything, negative included (a bench row of -176 MiB under CI's load).
   * Off by default: a measured step pays a collection, two trims and four barriers, which timed steps should not.
   */
  static boolean enabled() {
    return "1".equals(System.getenv("WEFT_ACTIVATION_PROBE"));
  }

  /**
   * Whether {@code step} measures: the second to the fourth of the run (the first allocates what every later step
   * reuses), or its only one; several readings, so a consumer can take their median past one stray JVM event.
   */
  static boolean measures(long step, long firstStep, long lastStep) {
    return step == Math.min(firstStep + 1, lastStep) || (step > firstStep + 1 && step <= firstStep + 3);
  }

  private static long residentAfterTrim() {
    Pointer.trimMemory();
    return ProcessMemory.rssBytes();
  }
}
