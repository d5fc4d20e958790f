package dev.weft.cuda.nccl;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.ShortPointer;

/**
 * Run in a JVM of its own by {@link NcclShimAllToAllTest} (the shim loads one libnccl.so.2 per process): three ranks
 * as threads, each with an {@link NcclComm} over the fake NCCL named by {@code args[0]}, run {@link NcclComm#allToAll}
 * on host buffers, unequal and zero splits in fp32, then equal splits in bf16 (2-byte elements). Prints one line per
 * rank and exchange and exits 0 when every output holds what its peers sent.
 */
final class FakeNcclAllToAll {
  static final int WORLD = 3, COLS = 3;

  public static void main(String[] args) throws Exception {
    Nccl.Status s = Nccl.load(args[0]);
    if (!s.loaded()) {
      System.out.println("NCCL did not load: " + s.error());
      System.exit(1);
    }
    byte[] id = Nccl.uniqueId();
    ExecutorService pool = Executors.newFixedThreadPool(WORLD);
    List<Future<List<String>>> ranks = new ArrayList<>();
    for (int r = 0; r < WORLD; r++) {
      int rank = r;
      ranks.add(pool.submit(() -> rank(id, rank)));
    }
    boolean ok = true;
    for (Future<List<String>> f : ranks) {
      for (String line : f.get(60, TimeUnit.SECONDS)) {
        System.out.println(line);
        ok &= line.endsWith(" ok");
      }
    }
    pool.shutdown();
    System.exit(ok ? 0 : 1);
  }

  private static List<String> rank(byte[] id, int r) {
    List<String> out = new ArrayList<>();
    try (NcclComm comm = NcclComm.init("fake", id, r, WORLD, Duration.ofSeconds(20))) {
      // rank r sends (r + j) % 3 rows to j (0 to some peers), so rank j receives (r + j) % 3 rows from r
      long[] send = new long[WORLD], recv = new long[WORLD];
      for (int j = 0; j < WORLD; j++) { send[j] = (r + j) % 3; recv[j] = (j + r) % 3; }
      out.add(exchangeFloats(comm, r, send, recv, "unequal fp32"));
      long[] two = {2, 2, 2};
      out.add(exchangeBf16(comm, r, two, "equal bf16"));
    }
    return out;
  }

  /** Element (src → dst, row, col)'s value: names where it came from. */
  static float value(int src, int dst, int row, int col) { return 1000 * src + 100 * dst + 10 * row + col; }

  /** As {@link #value}, as a 2-byte pattern (bf16 elements travel as bits). */
  static short bits(int src, int dst, int row, int col) { return (short) (0x1000 * src + 0x100 * dst + 0x10 * row + col); }

  /** What element (src → dst, row, col) holds. */
  interface Want { double at(int src, int dst, int row, int col); }

  /** Writes element {@code i} of a buffer. */
  interface Put { void at(long i, double v); }

  private static String exchangeFloats(NcclComm comm, int r, long[] send, long[] recv, String what) {
    long inRows = sum(send), outRows = sum(recv);
    try (FloatPointer in = new FloatPointer(Math.max(1, inRows * COLS)); FloatPointer got = new FloatPointer(Math.max(1, outRows * COLS))) {
      fill(r, send, (i, v) -> in.put(i, (float) v), FakeNcclAllToAll::value);
      for (long i = 0; i < outRows * COLS; i++) got.put(i, -1f);
      comm.allToAll(AllToAllPlan.of("fake", WORLD, inRows, COLS, outRows, COLS, recv, send), in.address(), got.address(),
          NcclDataType.FLOAT32, 4, 0);
      return verify(r, recv, got::get, FakeNcclAllToAll::value, what);
    }
  }

  /** Equal splits of 2-byte elements: the bit patterns (src, dst, row, col) travel unchanged. */
  private static String exchangeBf16(NcclComm comm, int r, long[] splits, String what) {
    long rows = sum(splits);
    try (ShortPointer in = new ShortPointer(rows * COLS); ShortPointer got = new ShortPointer(rows * COLS)) {
      fill(r, splits, (i, v) -> in.put(i, (short) v), FakeNcclAllToAll::bits);
      comm.allToAll(AllToAllPlan.of("fake", WORLD, rows, COLS, rows, COLS, splits, splits), in.address(), got.address(),
          NcclDataType.BFLOAT16, 2, 0);
      return verify(r, splits, got::get, FakeNcclAllToAll::bits, what);
    }
  }

  /** Rank r's input: the rows for each destination j in rank order, element values {@code want(r, j, row, col)}. */
  private static void fill(int r, long[] send, Put in, Want want) {
    long e = 0;
    for (int j = 0; j < WORLD; j++) for (int i = 0; i < send[j]; i++) for (int k = 0; k < COLS; k++) in.at(e++, want.at(r, j, i, k));
  }

  /** Rank r's output holds what each source j sent it, in rank order; one line naming the first element that does not. */
  private static String verify(int r, long[] recv, java.util.function.LongToDoubleFunction got, Want want, String what) {
    long e = 0;
    for (int j = 0; j < WORLD; j++) {
      for (int i = 0; i < recv[j]; i++) {
        for (int k = 0; k < COLS; k++, e++) {
          if (got.applyAsDouble(e) != want.at(j, r, i, k)) {
            return "rank " + r + " " + what + ": element " + e + " is " + got.applyAsDouble(e) + ", want " + want.at(j, r, i, k);
          }
        }
      }
    }
    return "rank " + r + " " + what + " " + sum(recv) + " rows ok";
  }

  private static long sum(long[] a) {
    long s = 0;
    for (long x : a) s += x;
    return s;
  }
}
