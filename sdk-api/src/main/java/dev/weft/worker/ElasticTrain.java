package dev.weft.worker;

import dev.weft.plan.SpecCheck;
import dev.weft.elastic.ElasticAgent;
import dev.weft.elastic.ElasticOptions;
import dev.weft.elastic.RendezvousBackend;
import dev.weft.comm.ClusterEnv;
import dev.weft.launch.ConsoleProgress;
import dev.weft.launch.OutputsPreflight;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.TrainingSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * This process becomes the node's elastic agent: {@code weft train SPEC --nnodes MIN:MAX ...}, or
 * {@code weft worker} in a pod of an elastic PyTorchJob (the operator's {@code PET_*} env, no rank).
 */
public final class ElasticTrain {
  /** The env the training operator gives the pods of a PyTorchJob with an elasticPolicy (and no RANK). */
  static final String RDZV_ENDPOINT = ClusterEnv.PET_RDZV_ENDPOINT;
  static final String NNODES = ClusterEnv.PET_NNODES;
  static final String NPROC_PER_NODE = ClusterEnv.PET_NPROC_PER_NODE;
  /** training-operator v1.9.0 elastic.go: {@code elasticPolicy.maxRestarts}. */
  static final String MAX_RESTARTS = "PET_MAX_RESTARTS";
  /** training-operator v1.9.0 elastic.go: only when {@code elasticPolicy.rdzvId} is set. */
  static final String RDZV_ID = "PET_RDZV_ID";
  /** training-operator v1.9.0 elastic.go: {@code elasticPolicy.rdzvBackend}, default c10d. */
  static final String RDZV_BACKEND = "PET_RDZV_BACKEND";

  private ElasticTrain() {}

  /**
   * A pod of an elastic PyTorchJob: the operator sets {@code PET_RDZV_ENDPOINT} and {@code PET_NNODES=MIN:MAX}
   * but no rank, expecting a launcher that runs the rendezvous (torchrun's job). Workers this agent starts
   * carry {@code WEFT_RANK}, so they never take this path themselves.
   */
  public static boolean isOperatorAgent(Map<String, String> env) {
    return present(env, RDZV_ENDPOINT) && present(env, NNODES) && !present(env, ClusterEnv.RANK) && !present(env, ClusterEnv.WEFT_RANK);
  }

  public static int runFromOperatorEnv(TrainingSpec spec, Path runDir, Map<String, String> env) {
    int procs = present(env, NPROC_PER_NODE) ? Integer.parseInt(env.get(NPROC_PER_NODE).trim()) : 1;
    RendezvousBackend backend = ElasticOptions.backend(spec, env.get(RDZV_BACKEND), RDZV_BACKEND + " (elasticPolicy.rdzvBackend)");
    ElasticOptions o = ElasticOptions.of(spec, ElasticOptions.parseNodes(env.get(NNODES)), procs, backend,
        dev.weft.spec.Endpoint.parse(env.get(RDZV_ENDPOINT), RDZV_ENDPOINT), present(env, RDZV_ID) ? env.get(RDZV_ID).trim() : spec.name(),
        null);
    if (present(env, MAX_RESTARTS)) o = o.withMaxRestarts(Integer.parseInt(env.get(MAX_RESTARTS).trim()));
    return run(spec, o, runDir, false); // pods get their token from a Secret (deployment.secretEnv), or none
  }

  /** {@code mintToken}: {@code weft train --nnodes}, where the agent hosting the store makes a token when none is given. */
  public static int run(TrainingSpec spec, ElasticOptions o, Path dir, boolean mintToken) {
    SpecCheck.validate(spec);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the run directory " + dir + "; choose a writable --run-dir", e);
    }
    OutputsPreflight.check(spec, dir); // before any rendezvous: every node checks, so each says why
    System.out.printf("weft: elastic training %s on %s node(s) × %d process(es), rendezvous %s %s id %s; run dir %s%n", spec.name(),
        o.minNodes() == o.maxNodes() ? String.valueOf(o.minNodes()) : o.minNodes() + "–" + o.maxNodes(), o.procsPerNode(),
        o.backend().flag(), o.endpoint(), o.runId(), dir);
    ConsoleProgress.View view = ConsoleProgress.view(System.out);
    ElasticAgent agent = new ElasticAgent(o, view.stream());
    ElasticAgent.Outcome out = (mintToken ? agent.mintTokenIfNone() : agent).run(spec, dir);
    view.finish();
    if (!out.ok()) {
      System.err.println("weft: elastic training failed: " + out.message());
      return out.exitCode();
    }
    Path summary = dir.resolve("summary.json");
    String done;
    if (out.left()) done = out.message(); // it may have held rank 0 until then: the summary here is not the run's
    else if (Files.isRegularFile(summary)) done = String.format("%d generation(s), %d restart(s), final loss %.4f. Summary: %s",
        out.generations(), out.restarts(), MetricsJson.readSummary(dir).finalLoss(), summary);
    else done = out.message() + " (rank 0's outputs are on another node)";
    System.out.println("weft: done — " + done);
    return 0;
  }

  private static boolean present(Map<String, String> env, String name) {
    String v = env.get(name);
    return v != null && !v.isBlank();
  }
}
