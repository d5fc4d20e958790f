package dev.weft.bench;

import dev.weft.checkpoint.CheckpointMeta;
import dev.weft.checkpoint.Checkpointer;
import dev.weft.checkpoint.StateEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.pytorch.global.torch;

/**
 * Checkpoints (issue 6): save throughput against a plain sequential write of the same bytes, and the
 * training stall of an async save against a sync one, with per-repeat pairs. Each repeat writes the same fp32 tensors three ways, in this order: a plain sequential write
 * of the bytes to one file plus fsync, a sync save (until committed) and an async save (the stall
 * until {@code save} returns, then until committed). Pairs: plain vs sync save and async stall vs
 * sync save of the same repeat. The first repeat warms up.
 */
public final class CheckpointPart {
  public record Config(int mib, int tensors, int repeats) {
    public static Config of(boolean quick) { return quick ? new Config(8, 4, 2) : new Config(256, 32, 9); }
  }

  /** Seconds per repeat. */
  public record Result(Config config, long bytes, double[] plainS, double[] syncS, double[] stallS, double[] asyncTotalS,
                       double[] plainCpuS, double[] syncCpuS) {}

  private CheckpointPart() {}

  public static Result measure(Config c) {
    Path dir = StepBench.tempDir();
    int n = c.repeats();
    double[] plain = new double[n], sync = new double[n], stall = new double[n], total = new double[n];
    double[] plainCpu = new double[n], syncCpu = new double[n];
    long elems = (long) c.mib() * (1 << 20) / 4 / c.tensors();
    List<StateEntry> entries = new ArrayList<>();
    for (int i = 0; i < c.tensors(); i++) entries.add(StateEntry.whole("model/t" + i, torch.randn(elems), true));
    try (Checkpointer s = Checkpointer.local(dir.resolve("sync"), new Checkpointer.Options(1, false, Duration.ofMinutes(10)));
         Checkpointer a = Checkpointer.local(dir.resolve("async"), new Checkpointer.Options(1, true, Duration.ofMinutes(10)))) {
      for (int r = -1; r < n; r++) {
        double c0 = cpuSeconds();
        double p = plainWrite(dir.resolve("plain.bin"), entries);
        double c1 = cpuSeconds();
        long t0 = System.nanoTime();
        s.save(meta(r + 2), entries);
        double sy = (System.nanoTime() - t0) / 1e9;
        double c2 = cpuSeconds();
        s.await(); // the previous checkpoint's deletion runs in the background: keep it out of the next save
        t0 = System.nanoTime();
        a.save(meta(r + 2), entries);
        double st = (System.nanoTime() - t0) / 1e9;
        a.await();
        double at = (System.nanoTime() - t0) / 1e9;
        if (r >= 0) {
          plain[r] = p;
          plainCpu[r] = c1 - c0;
          syncCpu[r] = c2 - c1;
          sync[r] = sy;
          stall[r] = st;
          total[r] = at;
        }
      }
    } finally {
      StepBench.deleteTree(dir);
      entries.forEach(e -> e.data().close());
    }
    return new Result(c, elems * 4 * c.tensors(), plain, sync, stall, total, plainCpu, syncCpu);
  }

  private static CheckpointMeta meta(long step) {
    return new CheckpointMeta(step, new CheckpointMeta.Mesh(1, 1, 1), 0, null, Map.of());
  }

  /** The entries' bytes in order into one file through a FileChannel, 8 MiB at a time, then fsync. */
  private static double plainWrite(Path file, List<StateEntry> entries) {
    long t0 = System.nanoTime();
    try {
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        for (StateEntry e : entries) {
          BytePointer base = new BytePointer(e.data().data_ptr());
          long size = e.data().nbytes();
          for (long off = 0; off < size; off += 8 << 20) {
            ByteBuffer chunk = base.position(off).limit(Math.min(size, off + (8 << 20))).asByteBuffer();
            while (chunk.hasRemaining()) ch.write(chunk);
          }
        }
        ch.force(true);
      }
      double s = (System.nanoTime() - t0) / 1e9;
      Files.delete(file);
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** CPU time of this process (all threads), where the JVM reports it. */
  private static double cpuSeconds() {
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime() / 1e9;
    }
    return 0;
  }

  public static List<BenchRow> rows(Result r) {
    double mib = r.bytes() / 1048576.0;
    String shape = String.format(Locale.ROOT, "%.0f MiB fp32 in %d tensors", mib, r.config().tensors());
    double[] syncRate = new double[r.syncS().length], plainRate = new double[r.plainS().length];
    for (int i = 0; i < syncRate.length; i++) {
      syncRate[i] = mib / r.syncS()[i];
      plainRate[i] = mib / r.plainS()[i];
    }
    List<BenchRow> rows = new ArrayList<>();
    rows.add(BenchRow.paired("checkpoint", "sync save throughput (until committed) vs plain sequential write + fsync, " + shape,
        Stats.median(syncRate), Stats.median(plainRate), "MiB/s", Stats.ratios(syncRate, plainRate), "≥ 0.7", ""));
    rows.add(BenchRow.paired("checkpoint", "async save: training stall vs sync save, " + shape, Stats.median(r.stallS()),
        Stats.median(r.syncS()), "s", Stats.ratios(r.stallS(), r.syncS()), "≤ 0.2", ""));
    rows.add(BenchRow.paired("checkpoint", "async save until committed vs sync save, " + shape, Stats.median(r.asyncTotalS()),
        Stats.median(r.syncS()), "s", Stats.ratios(r.asyncTotalS(), r.syncS()), "(report)",
        "includes waiting for the previous checkpoint's deletion"));
    rows.add(BenchRow.of("checkpoint", "CPU seconds of a sync save vs the plain write, " + shape, Stats.median(r.syncCpuS()),
        Stats.median(r.plainCpuS()), "s", "(report)", "the difference is mostly SHA-256, computed on a second thread"));
    return rows;
  }
}
