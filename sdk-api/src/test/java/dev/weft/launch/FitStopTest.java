package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.error.WeftException;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.RunSummary;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An exception from onStep stops every rank thread of an in-process dp=2 run, and the summary says so. */
class FitStopTest {
  @TempDir Path dir;

  private static List<String> rankThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
        .filter(n -> n.startsWith("weft-rank")).toList();
  }

  @Test
  void anExceptionFromOnStepStopsEveryRank() throws Exception {
    Trainer t = Trainer.model("gpt").size("tiny").dataParallel(2).globalBatch(4).steps(50).runDir(dir)
        .onStep((m, total) -> {
          if (m.step() == 3) throw new IllegalStateException("enough");
        });
    assertThatThrownBy(t::fit).isInstanceOf(WeftException.class).hasMessageContaining("onStep threw at step 3")
        .hasMessageContaining("enough");
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!rankThreads().isEmpty() && System.nanoTime() < deadline) Thread.sleep(50);
    assertThat(rankThreads()).isEmpty();
    RunSummary s = MetricsJson.readSummary(dir);
    assertThat(s.status()).isEqualTo("stopped");
    assertThat(s.steps()).isEqualTo(3);
    assertThat(s.error()).contains("onStep threw at step 3");
  }
}
