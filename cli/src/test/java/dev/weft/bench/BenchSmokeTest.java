package dev.weft.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.cli.WeftMain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every benchmark (comm, step, mfu, fit, tp, zero, pipeline, checkpoint, lora, packing, cp; recovery is not quick) runs in --quick mode and
 * yields well-formed rows; no timing is asserted.
 */
class BenchSmokeTest {
  @TempDir Path dir;

  @Test
  void everyBenchmarkProducesPositiveFiniteRowsWithRatiosFromTheirValues() {
    List<BenchRow> rows = BenchSuite.run("all", true);
    Set<String> seen = rows.stream().map(BenchRow::benchmark).collect(Collectors.toSet());
    assertThat(seen).containsExactlyInAnyOrderElementsOf(BenchSuite.NAMES.stream().filter(n -> !BenchSuite.NOT_QUICK.contains(n)).toList());
    // shape, never timing: a time or CPU time may round to zero on a coarse clock or a loaded machine
    for (BenchRow r : rows) {
      assertThat(r.measured()).as(r.quantity()).isNotNegative().isFinite();
      assertThat(r.reference()).as(r.quantity()).isNotNegative().isFinite();
      if (r.pairRatios() != null) {
        assertThat(r.pairRatios()).as(r.quantity()).isNotEmpty();
        for (double x : r.pairRatios()) assertThat(x).as(r.quantity()).isNotNaN();
        assertThat(r.ratio()).as(r.quantity()).isEqualTo(Stats.median(r.pairRatios()));
      } else if (r.reference() > 0) {
        assertThat(r.ratio()).as(r.quantity()).isEqualTo(r.measured() / r.reference());
      } else {
        assertThat(r.ratio()).as(r.quantity()).isNaN();
      }
      assertThat(r.spread()).as(r.quantity()).isNotBlank();
    }
    assertThat(rows.stream().filter(r -> r.benchmark().equals("comm")).count()).isEqualTo(2);
    // step: Weft against the hand-written libtorch loop, as separate processes (one shape in --quick)
    assertThat(rows.stream().filter(r -> r.benchmark().equals("step") && r.quantity().contains("hand-written")
        && r.pairRatios() != null)).hasSize(1);
    // quick fit: one fit/launch pair with the wait policy removed from the fit JVM
    assertThat(rows.stream().filter(r -> r.benchmark().equals("fit") && r.quantity().startsWith("step_ms")
        && r.quantity().contains("OMP_WAIT_POLICY unset"))).hasSize(1);
    // byte counts, not timings: ZeRO's per-rank bytes are the analytical figures plus bucket padding,
    // and recomputation keeps fewer activation bytes
    List<BenchRow> zeroBytes = rows.stream().filter(r -> r.benchmark().equals("zero") && r.unit().equals("B")).toList();
    assertThat(zeroBytes).hasSize(4);
    for (BenchRow r : zeroBytes) assertThat(r.ratio()).as(r.quantity()).isBetween(1.0, 1.1);
    // ZeroBench: zero 1/2/3 vs 0 in-process and the fused step; ZeroStepBench: zero 2/3 vs 0 (processes outside --quick)
    assertThat(rows.stream().filter(r -> r.benchmark().equals("zero") && r.pairRatios() != null)).hasSize(6);
    List<BenchRow> kept = rows.stream().filter(r -> r.quantity().contains("peak kept activation bytes")).toList();
    assertThat(kept).hasSize(2).allMatch(r -> r.ratio() < 1);
    assertThat(rows.stream().filter(r -> r.benchmark().equals("pipeline") && r.quantity().contains("bubble"))).hasSize(5); // 4 schedules + ZB-H1 vs 1F1B
    assertThat(rows.stream().filter(r -> r.benchmark().equals("checkpoint") && r.pairRatios() != null)).hasSize(3);
    // LoRA: one paired step-time row, and its gradient + optimizer bytes below the full fine-tune's
    assertThat(rows.stream().filter(r -> r.benchmark().equals("lora") && r.pairRatios() != null)).hasSize(1);
    assertThat(rows.stream().filter(r -> r.benchmark().equals("lora") && r.unit().equals("B"))).singleElement()
        .satisfies(r -> assertThat(r.ratio()).isBetween(0.0, 0.5));
    // packing: one paired real-token throughput row (a timing: its size is the bench's verdict, not this test's)
    assertThat(rows.stream().filter(r -> r.benchmark().equals("packing"))).singleElement()
        .satisfies(r -> assertThat(r.ratio()).isPositive());
    // cp: per method (allgather, ring, alltoall) a paired step-time row (cp=2 vs cp=1), its measured activation row and its exposed communication row
    assertThat(rows.stream().filter(r -> r.benchmark().equals("cp"))).hasSize(9);
    // moe: one paired step-time row (ep=2 vs ep=1, routing forced balanced: --quick leaves out the router's own) with its load imbalance, and the dp gradient bytes, fewer at ep=2 (no expert reduced)
    assertThat(rows.stream().filter(r -> r.benchmark().equals("moe") && r.pairRatios() != null)).singleElement()
        .satisfies(r -> assertThat(r.quantity()).contains("routing forced balanced"))
        .satisfies(r -> assertThat(r.spread()).contains("ep rank load imbalance 1.00"));
    assertThat(rows.stream().filter(r -> r.benchmark().equals("moe") && r.unit().equals("MiB"))).singleElement()
        .satisfies(r -> assertThat(r.ratio()).isBetween(0.0, 1.0));
    String table = BenchSuite.markdown(rows);
    assertThat(table.lines().count()).isEqualTo(rows.size() + 2L);
    assertThat(table.lines().skip(2)).allMatch(l -> l.startsWith("| ") && l.chars().filter(ch -> ch == '|').count() == 8);
  }

  @Test
  void tensorParallelVolumeMatchesItsDerivationExactly() {
    // counts are exact (no timing): the measured bytes equal the analytical model, with and without SP
    for (TpBench.Result r : TpBench.measure(BenchSuite.tinyGpt(), 2, 2)) {
      assertThat(r.measured()).as("sp=%s", r.sequenceParallel()).isEqualTo(r.expected());
      assertThat(r.memory().replicatedBytes()).isEqualTo(4 * TpBench.replicatedParameters(r.model()));
    }
  }

  @Test
  void cliWritesTheTableAndRefusesUnknownNames() throws Exception {
    Path out = dir.resolve("bench.md");
    assertThat(WeftMain.commandLine().execute("bench", "tp", "--quick", "--out", out.toString())).isZero();
    assertThat(Files.readString(out)).contains("| tp | tp=2 + SP: bytes per forward+backward")
        .contains("| tp | step_ms: tp=2 vs dp=2, 2 processes").contains("| tp | tp=2: exposed communication per step");
    assertThat(WeftMain.commandLine().execute("bench", "nope")).isEqualTo(WeftMain.EXIT_BAD_INPUT);
  }
}
