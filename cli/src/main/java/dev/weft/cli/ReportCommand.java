package dev.weft.cli;

import dev.weft.launch.UserPaths;
import dev.weft.checkpoint.CheckpointStorage;
import dev.weft.checkpoint.CheckpointStorages;
import dev.weft.checkpoint.RunRecord;
import dev.weft.error.WeftException;
import dev.weft.report.RunData;
import dev.weft.report.RunReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code weft report RUN}: report.html with plots and loss.png, from a run's metrics.jsonl: in a run directory, or in
 * the run record kept with the checkpoints (a checkpoint directory, or an object-store URI such as s3://bucket/ckpt).
 */
@Command(name = "report", mixinStandardHelpOptions = true,
    description = "Write report.html (plots: loss, LR, throughput, step time, memory, membership) and loss.png for a run.")
final class ReportCommand implements Callable<Integer> {
  /** Where the record of a run in an object store is copied when no --out is given. */
  static final Path DEFAULT_URI_OUT = Path.of("run-record");

  @Parameters(index = "0", paramLabel = "RUN",
      description = "A run directory (the --run-dir of weft train), or where its checkpoints are (a directory or s3://...):"
          + " the run record kept with them (run/) is read.")
  String run;

  @Option(names = "--out", paramLabel = "DIR",
      description = "Where to write the report (default: the run directory; for s3://... ./run-record).")
  Path out;

  @Override
  public Integer call() {
    Path dir = recordDir();
    RunData data = RunData.load(dir);
    RunReport.Result r = RunReport.write(data, UserPaths.writableDir(out == null ? dir : out, out == null ? "RUN" : "--out"));
    System.out.printf("weft: report %s (%d plots), loss curve %s%n", r.html(), r.plots().size(), r.lossPng());
    return 0;
  }

  /** The local directory holding the run's metrics.jsonl: the run dir, a checkpoint dir's record, or a download. */
  private Path recordDir() {
    if (CheckpointStorages.isUri(run)) {
      Path into = UserPaths.writableDir(out == null ? DEFAULT_URI_OUT : out, "--out");
      try (CheckpointStorage storage = CheckpointStorages.open(run, into.resolve(".checkpoint-work"))) {
        if (!RunRecord.download(storage, into)) {
          throw new dev.weft.error.BadInputException(run + " holds no run record (" + RunRecord.DIR + "/metrics.jsonl); give the checkpoint.dir of a run"
              + " trained with this version, or its run directory");
        }
      }
      return into;
    }
    Path dir = Path.of(run);
    Path record = dir.resolve(RunRecord.DIR);
    boolean checkpointDir = !Files.isRegularFile(dir.resolve(RunRecord.METRICS)) && Files.isRegularFile(record.resolve(RunRecord.METRICS));
    return checkpointDir ? record : dir;
  }
}
