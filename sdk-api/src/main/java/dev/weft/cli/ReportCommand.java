package dev.weft.cli;

import dev.weft.report.RunData;
import dev.weft.report.RunReport;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code weft report RUN_DIR}: report.html with plots and loss.png, from the run's metrics.jsonl. */
@Command(name = "report", mixinStandardHelpOptions = true,
    description = "Write RUN_DIR/report.html (plots: loss, LR, throughput, step time, memory, membership) and RUN_DIR/loss.png.")
final class ReportCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "RUN_DIR", description = "A run directory (the --run-dir of weft train).")
  Path runDir;

  @Option(names = "--out", paramLabel = "DIR", description = "Where to write the report (default: RUN_DIR).")
  Path out;

  @Override
  public Integer call() {
    RunData data = RunData.load(runDir);
    RunReport.Result r = RunReport.write(data, UserPaths.writableDir(out == null ? runDir : out, out == null ? "RUN_DIR" : "--out"));
    System.out.printf("weft: report %s (%d plots), loss curve %s%n", r.html(), r.plots().size(), r.lossPng());
    return 0;
  }
}
