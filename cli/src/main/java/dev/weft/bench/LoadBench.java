package dev.weft.bench;

import dev.weft.checkpoint.DType;
import dev.weft.eval.ModelSource;
import dev.weft.metrics.ProcessMemory;
import dev.weft.models.hf.HfModelInit;
import dev.weft.models.hf.HfShards;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.global.torch;

/**
 * {@code weft bench load}: a published model's shape ({@code weft model init --like}, bf16) loaded into
 * Weft, against reading the same bytes from the same files in the same run (page cache warm for both),
 * and the load's peak RSS (the high-water mark reset just before it) against the files' size. The fp32
 * build is also set against this machine's first-touch floor: writing as many bytes of fresh memory.
 */
final class LoadBench {
  record Config(String like) {
    static Config of(boolean quick) { return new Config(quick ? "smollm2-135m" : "llama-3.2-1b"); }
  }

  /** One load of the directory: its wall time and the process's peak RSS during it. */
  record Load(double seconds, long peakRssBytes) {}

  /** Interleaved pairs: reading the files, then the mapped load; the largest peak RSS of those loads. */
  record Pairs(double[] reads, double[] loads, long peakRssBytes) {
    double[] ratios() {
      double[] r = new double[reads.length];
      for (int i = 0; i < r.length; i++) r[i] = loads[i] / reads[i];
      return r;
    }
  }

  /**
   * {@code cold}: the first load in this JVM (class loading and JIT included); {@code mapped}: the same load again,
   * paired with reads, as {@code weft eval --precision bf16} builds it (the file's pages); {@code fp32}: the default build
   * (fp32 parameters); {@code touchSeconds}: allocating and writing 4 B per parameter of fresh memory, this machine's
   * floor for any fp32 build.
   */
  record Result(Config config, long fileBytes, Pairs mapped, Load cold, Load fp32, double touchSeconds, long parameters) {
    double readSeconds() { return Stats.median(mapped.reads()); }
  }

  /** Pairs of (read, mapped load): enough for a median that one load spike from another process does not move. */
  static final int PAIRS = 5;

  private LoadBench() {}

  static Result measure(Config c) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("weft-bench-load-");
      HfModelInit.Result init = HfModelInit.write(c.like(), dir, DType.BF16, 0, HfShards.DEFAULT_MAX_BYTES);
      List<Path> files = weights(dir);
      long bytes = readAll(files); // warms the page cache (and the read's code): every timing below reads from memory
      Load cold = load(dir, "bf16"); // warms the load's code as the first read warmed the read's
      Pairs mapped = pairs(dir, files);
      double touch = firstTouch(init.parameters());
      Load fp32 = load(dir, "fp32");
      touch = (touch + firstTouch(init.parameters())) / 2; // around the fp32 load: the VM's speed drifts with its load
      return new Result(c, bytes, mapped, cold, fp32, touch, init.parameters());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (dir != null) delete(dir);
    }
  }

  private static Pairs pairs(Path dir, List<Path> files) throws IOException {
    double[] reads = new double[PAIRS], loads = new double[PAIRS];
    long peak = 0;
    for (int i = 0; i < PAIRS; i++) {
      long r0 = System.nanoTime();
      readAll(files);
      reads[i] = (System.nanoTime() - r0) / 1e9;
      Load l = load(dir, "bf16");
      loads[i] = l.seconds();
      peak = Math.max(peak, l.peakRssBytes());
    }
    return new Pairs(reads, loads, peak);
  }

  /** Builds the whole model from {@code dir} as {@code weft eval --precision precision} does, then frees it. */
  private static Load load(Path dir, String precision) {
    resetPeakRss();
    try (PointerScope scope = new PointerScope()) {
      long l0 = System.nanoTime();
      ModelSource.open(dir, 16, precision).model();
      return new Load((System.nanoTime() - l0) / 1e9, ProcessMemory.peakRssBytes());
    }
  }

  /** Seconds to allocate {@code floats} fp32 values of fresh memory and write each once (what converting to fp32 must do). */
  private static double firstTouch(long floats) {
    try (PointerScope scope = new PointerScope()) {
      long t0 = System.nanoTime();
      torch.empty(floats).fill_(new Scalar(0.0));
      return (System.nanoTime() - t0) / 1e9;
    }
  }

  static List<BenchRow> rows(Result r) {
    String what = r.config().like() + " (" + String.format(Locale.ROOT, "%,d", r.parameters()) + " parameters, bf16)";
    double gib = 1L << 30;
    String touch = String.format(Locale.ROOT, "%.1f GiB written fresh: %.2f s", 4.0 * r.parameters() / gib, r.touchSeconds());
    Pairs m = r.mapped();
    return List.of(
        BenchRow.paired("load", "load " + what + " for bf16 eval (weights memory-mapped) vs reading its files",
            Stats.median(m.loads()), r.readSeconds(), "s", m.ratios(), "≤ 1.5", "page cache and code warm for both"),
        BenchRow.of("load", "peak RSS of those loads vs the files' size", m.peakRssBytes() / gib, r.fileBytes() / gib, "GiB",
            "≤ 1.3 + 1 GiB", "VmHWM reset before each load; mapped file pages count"),
        BenchRow.of("load", "the same load first in a fresh JVM vs reading its files", r.cold().seconds(), r.readSeconds(), "s",
            "(report)", "class loading and JIT of the spec, model and load code, paid once per process"),
        BenchRow.of("load", "load " + what + " with fp32 parameters (training, fp32 eval) vs reading its files", r.fp32().seconds(),
            r.readSeconds(), "s", "(report)", "4 B of fresh memory per parameter; first-touch floor " + touch + "; " + pages()),
        BenchRow.of("load", "that fp32 load vs this VM's first-touch floor (4 B × parameters allocated and written once)",
            r.fp32().seconds(), r.touchSeconds(), "s", "(report)", "floor: mean of one run before and one after the load"),
        BenchRow.of("load", "peak RSS of the fp32 load vs the files' size", r.fp32().peakRssBytes() / gib, r.fileBytes() / gib,
            "GiB", "(report)", "fp32 parameters are 2× bf16 files"));
  }

  /** libtorch puts tensors of 2 MiB and more on huge pages only when the user sets THP_MEM_ALLOC_ENABLE=1 (docs/performance.md). */
  private static String pages() {
    return "1".equals(System.getenv("THP_MEM_ALLOC_ENABLE")) ? "huge pages (THP_MEM_ALLOC_ENABLE=1)" : "4 KiB pages";
  }

  private static List<Path> weights(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".safetensors")).sorted().toList();
    }
  }

  /** Reads every byte of {@code files} through one 8 MiB buffer; returns the count. */
  private static long readAll(List<Path> files) throws IOException {
    ByteBuffer buf = ByteBuffer.allocateDirect(8 << 20);
    long total = 0;
    for (Path f : files) {
      try (FileChannel ch = FileChannel.open(f)) {
        int n;
        while ((n = ch.read(buf)) >= 0) {
          total += n;
          buf.clear();
        }
      }
    }
    return total;
  }

  /** Linux: writing 5 to clear_refs resets this process's peak RSS (VmHWM); elsewhere the peak stays the run's. */
  private static void resetPeakRss() {
    try {
      Files.writeString(Path.of("/proc/self/clear_refs"), "5");
    } catch (IOException | RuntimeException e) {
      // not Linux, or not allowed: the peak then covers the whole run
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary folder left behind
    }
  }
}
