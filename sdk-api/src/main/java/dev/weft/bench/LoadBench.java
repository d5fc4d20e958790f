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

/**
 * {@code weft bench load}: a published model's shape ({@code weft model init --like}, bf16) loaded into
 * Weft, against reading the same bytes from the same files in the same run (page cache warm for both),
 * and the load's peak RSS (the high-water mark reset just before it) against the files' size.
 */
final class LoadBench {
  record Config(String like) {
    static Config of(boolean quick) { return new Config(quick ? "smollm2-135m" : "llama-3.2-1b"); }
  }

  /** One load of the directory: its wall time and the process's peak RSS during it. */
  record Load(double seconds, long peakRssBytes) {}

  /** {@code fp32}: the default build (fp32 parameters); {@code mapped}: {@code weft eval --precision bf16}'s (the file's pages). */
  record Result(Config config, long fileBytes, double readSeconds, Load fp32, Load mapped, long parameters) {}

  private LoadBench() {}

  static Result measure(Config c) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("weft-bench-load-");
      HfModelInit.Result init = HfModelInit.write(c.like(), dir, DType.BF16, 0, HfShards.DEFAULT_MAX_BYTES);
      List<Path> files = weights(dir);
      readAll(files); // warm the page cache: both timings below read from memory
      long r0 = System.nanoTime();
      long bytes = readAll(files);
      double read = (System.nanoTime() - r0) / 1e9;
      Load mapped = load(dir, "bf16");
      Load fp32 = load(dir, "fp32");
      return new Result(c, bytes, read, fp32, mapped, init.parameters());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (dir != null) delete(dir);
    }
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

  static List<BenchRow> rows(Result r) {
    String what = r.config().like() + " (" + String.format(Locale.ROOT, "%,d", r.parameters()) + " parameters, bf16)";
    double gib = 1L << 30;
    return List.of(
        BenchRow.of("load", "load " + what + " for bf16 eval (weights memory-mapped) vs reading its files", r.mapped().seconds(),
            r.readSeconds(), "s", "≤ 1.5", "page cache warm for both; weft eval --precision bf16"),
        BenchRow.of("load", "peak RSS of that load vs the files' size", r.mapped().peakRssBytes() / gib, r.fileBytes() / gib, "GiB",
            "≤ 1.3 + 1 GiB", "VmHWM reset before the load; mapped file pages count"),
        BenchRow.of("load", "load " + what + " with fp32 parameters (training, fp32 eval) vs reading its files", r.fp32().seconds(),
            r.readSeconds(), "s", "(report)", "converts to fp32: 4 B of fresh memory per parameter"),
        BenchRow.of("load", "peak RSS of the fp32 load vs the files' size", r.fp32().peakRssBytes() / gib, r.fileBytes() / gib,
            "GiB", "(report)", "fp32 parameters are 2× bf16 files"));
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
