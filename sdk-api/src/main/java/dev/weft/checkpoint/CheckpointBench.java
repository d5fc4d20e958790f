package dev.weft.checkpoint;

import dev.weft.util.NativeThreads;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.pytorch.global.torch;

/**
 * Save throughput against a plain sequential write (FileChannel + fsync) of the same bytes, and the
 * training stall of an async save against a sync one, measured in the same run, interleaved,
 * medians of {@code --repeats}. Usage: {@code CheckpointBench [--mib 256] [--tensors 32] [--repeats 5] [--dir DIR]}.
 */
public final class CheckpointBench {
  private CheckpointBench() {}

  public static void main(String[] args) throws IOException {
    int mib = intArg(args, "--mib", 256), count = intArg(args, "--tensors", 32), repeats = intArg(args, "--repeats", 5);
    Path dir = Path.of(strArg(args, "--dir", System.getProperty("java.io.tmpdir") + "/weft-ckpt-bench"));
    NativeThreads.configure(1);
    FileSync.deleteTree(dir);
    Files.createDirectories(dir);
    List<StateEntry> entries = new ArrayList<>();
    long elems = (long) mib * (1 << 20) / 4 / count;
    for (int i = 0; i < count; i++) entries.add(StateEntry.whole("model/t" + i, torch.randn(elems), true));
    long bytes = elems * 4 * count;
    double[] plain = new double[repeats], sync = new double[repeats], stall = new double[repeats], asyncTotal = new double[repeats];
    double[] plainCpu = new double[repeats], syncCpu = new double[repeats];
    try (Checkpointer s = Checkpointer.local(dir.resolve("sync"), new Checkpointer.Options(1, false, Duration.ofMinutes(10)));
         Checkpointer a = Checkpointer.local(dir.resolve("async"), new Checkpointer.Options(1, true, Duration.ofMinutes(10)))) {
      for (int r = -1; r < repeats; r++) { // r = -1 warms up
        double c0 = cpuSeconds();
        double p = plainWrite(dir.resolve("plain.bin"), entries);
        double c1 = cpuSeconds();
        long t0 = System.nanoTime();
        s.save(meta(r + 2), entries);
        double sy = (System.nanoTime() - t0) / 1e9;
        double c2 = cpuSeconds();
        s.await(); // old checkpoints are deleted in the background: keep that out of the next measurement
        t0 = System.nanoTime();
        a.save(meta(r + 2), entries);
        double st = (System.nanoTime() - t0) / 1e9;
        a.await();
        double at = (System.nanoTime() - t0) / 1e9; // includes waiting for the deletion of the previous checkpoint
        if (r >= 0) {
          plain[r] = p;
          plainCpu[r] = c1 - c0;
          syncCpu[r] = c2 - c1;
          sync[r] = sy;
          stall[r] = st;
          asyncTotal[r] = at;
        }
      }
    }
    double mb = bytes / 1048576.0;
    System.out.printf("checkpoint bench: %d tensors, %.0f MiB fp32, %d repeats (medians), dir %s%n", count, mb, repeats, dir);
    System.out.printf("  plain sequential write + fsync : %7.3f s  %7.0f MiB/s%n", median(plain), mb / median(plain));
    System.out.printf("  sync save (commit included)    : %7.3f s  %7.0f MiB/s%n", median(sync), mb / median(sync));
    System.out.printf("  CPU seconds: plain %.3f, sync save %.3f (the difference is mostly SHA-256, on a second thread)%n",
        median(plainCpu), median(syncCpu));
    System.out.printf("  async save: stall %.3f s, until committed %.3f s%n", median(stall), median(asyncTotal));
    System.out.printf("  save throughput / plain write  : %.2f (target >= 0.7)%n", median(plain) / median(sync));
    System.out.printf("  async stall / sync save        : %.2f (target <= 0.2)%n", median(stall) / median(sync));
    FileSync.deleteTree(dir);
  }

  private static CheckpointMeta meta(long step) { return new CheckpointMeta(step, new CheckpointMeta.Mesh(1, 1, 1), 0, null, Map.of()); }

  /** The same bytes written to one file, in order, then fsynced: the baseline a save is compared with. */
  private static double plainWrite(Path file, List<StateEntry> entries) throws IOException {
    long t0 = System.nanoTime();
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
      for (StateEntry e : entries) {
        long n = e.data().nbytes();
        for (long off = 0; off < n; off += 8 << 20) {
          ByteBuffer b = new BytePointer(e.data().data_ptr()).position(off).limit(Math.min(n, off + (8 << 20))).asByteBuffer();
          while (b.hasRemaining()) ch.write(b);
        }
      }
      ch.force(true);
    }
    double s = (System.nanoTime() - t0) / 1e9;
    Files.delete(file);
    return s;
  }

  /** CPU time of this process (all threads), where the JVM reports it. */
  private static double cpuSeconds() {
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime() / 1e9;
    }
    return 0;
  }

  private static double median(double[] v) {
    double[] c = v.clone();
    Arrays.sort(c);
    return c[c.length / 2];
  }

  private static int intArg(String[] a, String name, int def) { return Integer.parseInt(strArg(a, name, Integer.toString(def))); }

  private static String strArg(String[] a, String name, String def) {
    for (int i = 0; i + 1 < a.length; i++) if (a[i].equals(name)) return a[i + 1];
    return def;
  }
}
