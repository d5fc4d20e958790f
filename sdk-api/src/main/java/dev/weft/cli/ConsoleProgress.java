package dev.weft.cli;

import dev.weft.metrics.StepMetrics;
import dev.weft.train.StepListener;
import java.io.PrintStream;

/** A readable line every few steps: step, loss, learning rate, gradient norm, throughput, ETA. */
final class ConsoleProgress implements StepListener {
  private final PrintStream out;
  private final long start = System.nanoTime();

  ConsoleProgress(PrintStream out) { this.out = out; }

  @Override
  public void onStep(StepMetrics m, long total) {
    boolean show = m.step() == 1 || m.step() == total || m.step() % Math.max(1, total / 20) == 0;
    if (!show) return;
    double elapsed = (System.nanoTime() - start) / 1e9;
    double eta = elapsed / m.step() * (total - m.step());
    out.printf("step %d/%d  loss %.4f  lr %.2e  grad %.3f  %,.0f tok/s  %.0f ms/step  eta %.0fs%n", m.step(), total,
        m.loss(), m.lr(), m.gradNorm(), m.tokensPerS(), m.stepMs(), eta);
    out.flush();
  }
}
