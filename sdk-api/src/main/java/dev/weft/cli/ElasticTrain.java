package dev.weft.cli;

import dev.weft.elastic.ElasticAgent;
import dev.weft.elastic.ElasticOptions;
import dev.weft.elastic.Endpoint;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecValidator;
import dev.weft.spec.TrainingSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** {@code weft train SPEC --nnodes MIN:MAX ...}: this process becomes the node's elastic agent. */
final class ElasticTrain {
  private ElasticTrain() {}

  static int run(TrainingSpec spec, TrainCommand c) throws Exception {
    SpecValidator.validate(spec);
    var e = spec.elastic();
    int[] nodes = c.nnodes != null ? ElasticOptions.parseNodes(c.nnodes) : new int[] {e.minNodes(), e.maxNodes()};
    ElasticOptions o = new ElasticOptions(nodes[0], nodes[1], c.nprocPerNode == null ? 1 : c.nprocPerNode,
        Endpoint.parse(c.rdzvEndpoint == null ? "127.0.0.1:29400" : c.rdzvEndpoint), c.rdzvId == null ? spec.name() : c.rdzvId,
        c.joinWindowS == null ? ElasticOptions.DEFAULT_JOIN_WINDOW : Duration.ofMillis((long) (c.joinWindowS * 1000)),
        Duration.ofSeconds(e.failureTimeoutSeconds()), e.maxRestarts(), Duration.ofMinutes(10));
    Path dir = c.runDir != null ? c.runDir : Path.of("runs", spec.name() + "-" + o.runId());
    Files.createDirectories(dir);
    System.out.printf("weft: elastic training %s on %s node(s) × %d process(es), rendezvous %s id %s; run dir %s%n", spec.name(),
        o.minNodes() == o.maxNodes() ? String.valueOf(o.minNodes()) : o.minNodes() + "–" + o.maxNodes(), o.procsPerNode(),
        o.endpoint(), o.runId(), dir);
    ConsoleProgress.View view = ConsoleProgress.view(System.out);
    ElasticAgent.Outcome out = new ElasticAgent(o, view.stream()).run(spec, dir);
    view.finish();
    if (!out.ok()) {
      System.err.println("weft: elastic training failed: " + out.message());
      return out.exitCode();
    }
    if (Files.isRegularFile(dir.resolve("summary.json"))) {
      var s = MetricsJson.readSummary(dir);
      System.out.printf("weft: done — %d generation(s), %d restart(s), final loss %.4f. Summary: %s%n", out.generations(),
          out.restarts(), s.finalLoss(), dir.resolve("summary.json"));
    } else {
      System.out.printf("weft: done — %s (rank 0's outputs are on another node)%n", out.message());
    }
    return 0;
  }
}
