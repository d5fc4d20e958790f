package dev.weft.bench;

import dev.weft.util.NativeThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Model FLOPs utilisation: the step's model FLOP/s ({@code GptConfig.trainingFlopsPerToken} ×
 * tokens/s, from {@link StepBench}) against the best measured fp32 matmul rate on this machine with
 * the same thread count (square {@code mm}, best of several; 2·n³ FLOPs each).
 */
public final class MfuBench {
  /** Best GFLOP/s per matmul size. */
  public record Peak(int[] sizes, double[] gflops, int threads) {
    public double best() { return Stats.max(gflops); }
  }

  private MfuBench() {}

  public static Peak peak(int[] sizes, int repeats, int threads) {
    NativeThreads.configure(threads);
    double[] g = new double[sizes.length];
    for (int i = 0; i < sizes.length; i++) {
      int n = sizes[i];
      try (PointerScope scope = new PointerScope()) {
        Tensor a = torch.randn(n, n), b = torch.randn(n, n);
        torch.mm(a, b); // warm-up
        double best = Double.MAX_VALUE;
        for (int r = 0; r < repeats; r++) {
          try (PointerScope inner = new PointerScope()) {
            long t0 = System.nanoTime();
            torch.mm(a, b);
            best = Math.min(best, (System.nanoTime() - t0) / 1e9);
          }
        }
        g[i] = 2.0 * n * n * n / best / 1e9;
      }
    }
    return new Peak(sizes, g, threads);
  }

  public static Peak peak(boolean quick, int threads) {
    return quick ? peak(new int[] {512, 1024}, 3, threads) : peak(new int[] {1024, 2048}, 7, threads);
  }

  public static List<BenchRow> rows(Peak p, StepBench.Result step) {
    List<BenchRow> rows = new ArrayList<>();
    StringBuilder peaks = new StringBuilder();
    for (int i = 0; i < p.sizes().length; i++) {
      peaks.append(i == 0 ? "peak = best of " : ", ").append(p.sizes()[i]).append("²: ")
          .append(String.format(Locale.ROOT, "%.1f", p.gflops()[i]));
    }
    String note = peaks + " GFLOP/s, " + p.threads() + " threads";
    rows.add(BenchRow.of("mfu", "MFU of the Weft step (model GFLOP/s / peak fp32 matmul)",
        step.modelFlopsPerS(step.weftMedianMs()) / 1e9, p.best(), "GFLOP/s", "(report)", note));
    rows.add(BenchRow.of("mfu", "MFU of the plain libtorch step", step.modelFlopsPerS(step.plainMedianMs()) / 1e9, p.best(),
        "GFLOP/s", "(report)", note));
    return rows;
  }
}
