package dev.weft.bench;

import dev.weft.Trainer;
import dev.weft.tracking.progress.ProgressEndpoint;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * TrainJob progress to a status server that never answers against no progress at all (issue 30): a worker process
 * given the three variables Trainer's TrainJobStatus plugin injects, its URL a loopback port that accepts connections
 * and never reads them (every post waits out its deadline in the TLS handshake, then backs off), against the same run
 * without them; each round runs both, in an order swapped per round; a pair is one round's two median {@code step_ms}.
 * The CA file is a real certificate whose key was thrown away: nothing ever completes a handshake with it.
 */
public final class ProgressBench {
  public record Config(Trainer model, String label, int rounds, int steps, int warmSteps) {
    public static Config of(boolean quick) {
      Trainer tiny = Trainer.model("gpt").seqLen(64).globalBatch(8).warmup(1).lr(1e-3).seed(7);
      return quick ? new Config(tiny, "GPT tiny seq 64 batch 8, 1 process", 1, 20, 3)
          : new Config(tiny, "GPT tiny seq 64 batch 8, 1 process", 3, 300, 10);
    }
  }

  /** {@code hung[round]}, {@code none[round]}: median step ms; {@code stalledReports}: whether every hung run's last report was left unsent. */
  public record Result(Config config, double[] hung, double[] none, boolean stalledReports) {}

  /** One run's median step, and (hung side) whether its last report was left unsent at close. */
  private record Step(double ms, boolean stalled) {}

  private ProgressBench() {}

  public static Result measure(Config c) {
    Path dir = StepBench.tempDir();
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Map<String, String> env = endpoint(dir, silent.getLocalPort());
      var runs = Interleaved.rounds(c.rounds(), dir, "hung", "none", (withProgress, run) -> {
        ZeroStepBench.launch(c.model().steps(c.steps()).runDir(run).toSpec(), run, withProgress ? env : Map.of());
        double ms = ZeroStepBench.breakdown(run.resolve("metrics.jsonl"), c.warmSteps()).stepMs();
        // the hung side's last report must really have been left unsent at close
        return new Step(ms, withProgress && Files.readString(run.resolve("workers.log")).contains("did not go out"));
      });
      double[] hung = runs.first().stream().mapToDouble(Step::ms).toArray();
      double[] none = runs.second().stream().mapToDouble(Step::ms).toArray();
      return new Result(c, hung, none, runs.first().stream().allMatch(Step::stalled));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  /** What the TrainJobStatus plugin injects, pointing at {@code port} on loopback, with a token file and the CA file. */
  private static Map<String, String> endpoint(Path dir, int port) throws IOException {
    Path ca = dir.resolve("ca.crt"), token = dir.resolve("token");
    try (InputStream in = ProgressBench.class.getResourceAsStream("unreachable-ca.crt")) {
      Files.copy(in, ca);
    }
    Files.writeString(token, "bench-token\n");
    return Map.of(ProgressEndpoint.URL_ENV, "https://127.0.0.1:" + port + "/apis/trainer.kubeflow.org/v1alpha1/namespaces/bench/trainjobs/bench/status",
        ProgressEndpoint.CA_CERT_ENV, ca.toString(), ProgressEndpoint.TOKEN_ENV, token.toString());
  }

  public static List<BenchRow> rows(Result r) {
    return List.of(BenchRow.paired("progress", "step_ms: TrainJob progress to a status server that never answers vs none (swapped per round), "
            + r.config().label(), Stats.median(r.hung()), Stats.median(r.none()), "ms", Stats.ratios(r.hung(), r.none()), "≤ 1.05",
        r.stalledReports() ? "every hung run's last report was left after the bounded wait at close" : "a hung run's report went out (check the server)"));
  }
}
