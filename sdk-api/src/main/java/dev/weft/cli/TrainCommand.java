package dev.weft.cli;

import dev.weft.device.DeviceDecision;
import dev.weft.device.Devices;
import dev.weft.launch.LocalLauncher;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.RunSummary;
import dev.weft.spec.SpecIO;
import dev.weft.spec.SpecValidator;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.NativeThreads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code weft train SPEC}: validate, start the workers on this machine, report. */
@Command(name = "train", mixinStandardHelpOptions = true, description = "Train a spec with local worker processes.")
final class TrainCommand implements Callable<Integer> {
  @Mixin SpecOptions specOptions;

  @Option(names = "--nproc", description = "Worker processes (default: dp × tp × pp of the spec).")
  Integer nproc;

  @Option(names = "--run-dir", description = "Where metrics.jsonl, summary.json and spec.yaml go (default: runs/NAME-TIME).")
  Path runDir;

  @Option(names = "--resume", paramLabel = "latest|PATH",
      description = "Continue from the newest checkpoint under checkpoint.dir, or from one checkpoint directory.")
  String resume;

  @Option(names = "--nnodes", paramLabel = "MIN:MAX",
      description = "Elastic: run as this node's agent in a run of MIN to MAX nodes (or N); see docs/elastic.md.")
  String nnodes;

  @Option(names = "--nproc-per-node", description = "Elastic: worker processes on this node (default 1).")
  Integer nprocPerNode;

  @Option(names = "--rdzv-endpoint", paramLabel = "HOST:PORT",
      description = "Elastic: the rendezvous store; the first agent to bind it hosts it (default 127.0.0.1:29400).")
  String rdzvEndpoint;

  @Option(names = "--rdzv-id", paramLabel = "ID", description = "Elastic: the run's id, the same on every node (default: the spec name).")
  String rdzvId;

  @Option(names = "--join-window", paramLabel = "SECONDS", description = "Elastic: how long a rendezvous round waits for more nodes (default 2).")
  Double joinWindowS;

  @Override
  public Integer call() throws Exception {
    if (resume != null) specOptions.overrides.add("checkpoint.resume=" + resume);
    TrainingSpec spec = specOptions.read();
    if (nnodes != null || spec.elastic().enabled()) return ElasticTrain.run(spec, this);
    int n = nproc == null ? spec.worldSize() : nproc;
    SpecValidator.validate(spec, n);
    DeviceDecision device = Devices.decide(spec.device()); // device=cuda where it cannot run: exit 2 before any worker starts
    Path dir = runDir != null ? runDir
        : Path.of("runs", spec.name() + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    Files.createDirectories(dir);
    Path resolved = dir.resolve("spec.yaml");
    SpecIO.write(spec, resolved);
    System.out.printf("weft: training %s on %d worker process(es), dp=%d tp=%d pp=%d; run dir %s%n", spec.name(), n,
        spec.parallel().dp(), spec.parallel().tp(), spec.parallel().pp(), dir);
    System.out.println("weft: " + device.note());
    ConsoleProgress.View view = ConsoleProgress.view(System.out);
    LocalLauncher launcher = new LocalLauncher(
        List.of(WeftMain.class.getName(), "worker", "--spec", resolved.toString(), "--run-dir", dir.toString()),
        Map.of(), view.stream());
    LocalLauncher.Outcome outcome = launcher.run(n, NativeThreads.perRank(n));
    view.finish();
    if (!outcome.ok()) {
      System.err.println("weft: training failed: " + outcome.reason());
      return outcome.exitCode();
    }
    RunSummary s = MetricsJson.readSummary(dir);
    System.out.printf("weft: done — %d steps, loss %.4f → %.4f, %.0f tokens/s, replicas consistent: %s, %.1f s. Summary: %s%n",
        s.steps(), s.initialLoss(), s.finalLoss(), s.tokensPerS(), s.replicasConsistent(), s.wallS(), dir.resolve("summary.json"));
    return 0;
  }
}
