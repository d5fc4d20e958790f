package dev.weft.cli;

import dev.weft.launch.UserPaths;
import dev.weft.launch.JavaCommand;
import dev.weft.bench.BenchRow;
import dev.weft.bench.BenchSuite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code weft bench [comm|step|mfu|fit|tp|zero|pipeline|checkpoint|recovery|lora|load|packing|cp|moe|memory|grpo|all] [--quick] [--out FILE]}: the benchmarks of
 * docs/performance.md as one markdown table. libtorch's OpenMP pool reads OMP_WAIT_POLICY once, when
 * it loads; without PASSIVE its spinning threads fight OpenBLAS for the cores, so when the variable
 * is unset the command runs itself again in a child JVM that has it.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Benchmark Weft against raw libtorch/Gloo and theory: all-reduce bandwidth, training step, MFU, tensor-parallel volume and memory, ZeRO memory and step time, pipeline bubble, checkpoint save, elastic recovery, LoRA vs full fine-tune, packing vs padding, context parallelism, expert parallelism.")
final class BenchCommand implements Callable<Integer> {
  @Parameters(index = "0", arity = "0..1", defaultValue = "all", paramLabel = "WHICH",
      description = "comm, step, mfu, fit, tp, zero, pipeline, checkpoint, recovery (minutes; not in all --quick), lora, load (a 1B-shaped bf16 directory; --quick: 135M; not in all --quick), packing, cp, moe, progress, memory (frozen bases, chunked loss, merge: an hour; not in all --quick), grpo or all (default).")
  String which;

  @Option(names = "--quick", description = "Small sizes and few repeats (seconds; for smoke tests, not for quoting).")
  boolean quick;

  @Option(names = "--out", paramLabel = "FILE", description = "Also write the table (markdown) to FILE.")
  Path out;

  @Override
  public Integer call() throws Exception {
    if (out != null) UserPaths.writableFile(out, "--out"); // before minutes of benchmarks, not after them
    if (!which.equals("all") && !BenchSuite.NAMES.contains(which)) {
      System.err.println("weft: unknown benchmark '" + which + "'; use one of " + BenchSuite.NAMES + " or all");
      return WeftMain.EXIT_BAD_INPUT;
    }
    if (System.getenv("OMP_WAIT_POLICY") == null) return inChildWithPassiveOmp();
    System.out.println("weft bench " + which + (quick ? " --quick" : "") + ": " + BenchSuite.environment());
    List<BenchRow> rows = BenchSuite.run(which, quick);
    String table = BenchSuite.markdown(rows);
    System.out.println();
    System.out.print(table);
    System.out.println("\nratio: measured / reference; for interleaved pairs (comm, step) the median of the per-pair ratios."
        + " See docs/performance.md.");
    if (out != null) {
      if (out.toAbsolutePath().getParent() != null) Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(out, "<!-- weft bench " + which + (quick ? " --quick" : "") + "; " + BenchSuite.environment()
          + " -->\n" + table);
      System.out.println("\nweft: table written to " + out);
    }
    return 0;
  }

  private int inChildWithPassiveOmp() throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(JavaCommand.of(List.of(WeftMain.class.getName(), "bench", which)));
    if (quick) cmd.add("--quick");
    if (out != null) cmd.addAll(List.of("--out", out.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd).inheritIO();
    pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
    System.err.println("weft: OMP_WAIT_POLICY is unset; running the benchmarks in a child JVM with OMP_WAIT_POLICY=PASSIVE");
    return pb.start().waitFor();
  }
}
