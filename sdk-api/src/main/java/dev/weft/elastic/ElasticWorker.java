package dev.weft.elastic;

import dev.weft.spec.Endpoint;
import dev.weft.comm.RunToken;
import dev.weft.comm.StoreValues;
import dev.weft.metrics.StepMetrics;
import dev.weft.spec.ElasticSpec;
import dev.weft.train.StepListener;
import java.time.Duration;
import java.util.Map;

/**
 * A worker's side of elastic training, active when an {@link ElasticAgent} started it: heartbeats
 * into the rendezvous store, publishes its step and start-up times, and leaves cleanly at the step
 * boundary the agents agreed on ({@code stop_at}, after that step's checkpoint) when the run grows.
 */
public final class ElasticWorker implements StepListener {
  public static final String ENV_STORE = "WEFT_ELASTIC_STORE";
  /** {@link RendezvousBackend#flag()} of {@link #ENV_STORE}. */
  public static final String ENV_BACKEND = "WEFT_ELASTIC_BACKEND";
  /** Restarts of the run so far, for the workers' metrics. */
  public static final String ENV_RESTARTS = "WEFT_RESTARTS";
  public static final String ENV_PREFIX = "WEFT_ELASTIC_PREFIX";
  /** Exit code of a worker that left at a step boundary for a new rendezvous round (3 is a diverged run's). */
  public static final int EXIT_REJOIN = 5;
  /** Exit code of a worker whose heartbeat could not reach the rendezvous store. */
  public static final int EXIT_CUT_OFF = 4;
  /** The run's own prefix (not the generation's): run-wide facts such as the loss of step 1. */
  public static final String ENV_RUN_PREFIX = "WEFT_ELASTIC_RUN_PREFIX";
  /** Run-wide key: the loss of step 1, whichever generation and node trained it. */
  public static final String INITIAL_LOSS = "initial_loss";
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);

  /** Thrown at the agreed step boundary; the worker command turns it into {@link #EXIT_REJOIN}. */
  public static final class Rejoin extends RuntimeException {
    public Rejoin(long step) { super("leaving after step " + step + " for a new rendezvous round", null, false, false); }
  }

  private final StepListener next;
  private final KeyValue kv;
  private final KeyValue run;
  private final int rank;
  @SuppressWarnings("unused") // runs while the worker lives
  private final Heartbeat heartbeat;
  private boolean stepped;

  private ElasticWorker(StepListener next, KeyValue kv, KeyValue run, int rank, Duration beat) {
    this.next = next;
    this.kv = kv;
    this.run = run;
    this.rank = rank;
    kv.set(WorkerKeys.started(rank), String.valueOf(System.currentTimeMillis()));
    if (dev.weft.launch.StandbyHandoff.handedOff()) kv.set(WorkerKeys.standby(rank), String.valueOf(ProcessHandle.current().pid()));
    this.heartbeat = Heartbeat.start(kv, WorkerKeys.heartbeat(rank), beat, ElasticWorker::cutOff);
  }

  /**
   * {@code next} itself when this worker was not started by an elastic agent. Store calls have the
   * failure timeout as deadline; a worker whose heartbeat cannot reach the store stops at once.
   */
  public static StepListener wrap(StepListener next, int rank, Map<String, String> env, ElasticSpec spec) {
    String endpoint = env.get(ENV_STORE);
    if (endpoint == null || endpoint.isBlank()) return next;
    KeyValue root = RendezvousBackend.parse(env.get(ENV_BACKEND), ENV_BACKEND).open(Endpoint.parse(endpoint, ENV_STORE), false,
        RunToken.fromEnv(env), false, Duration.ofSeconds(2L * spec.failureTimeoutSeconds()), CONNECT_TIMEOUT, line -> {}).kv();
    String prefix = env.getOrDefault(ENV_PREFIX, "");
    return new ElasticWorker(next, root.under(prefix), root.under(env.getOrDefault(ENV_RUN_PREFIX, prefix)), rank,
        ElasticOptions.heartbeat(spec));
  }

  /** The main thread may be blocked in a collective on the same dead link: leave from here, with the reason. */
  static void cutOff(String reason) {
    System.err.println("weft: this worker stops: " + reason);
    System.err.flush();
    Runtime.getRuntime().halt(EXIT_CUT_OFF);
  }

  @Override public void onStep(StepMetrics m, long totalSteps) { next.onStep(m, totalSteps); }

  @Override public void onMemory(int rank, long parameterBytes, long gradientBytes, long optimizerBytes) {
    next.onMemory(rank, parameterBytes, gradientBytes, optimizerBytes);
  }

  @Override public void onDeviceMemory(int rank, dev.weft.metrics.DeviceMemory m) { next.onDeviceMemory(rank, m); }
  @Override public void onExpertLoad(int rank, double[] load) { next.onExpertLoad(rank, load); }

  @Override public void onCheckpointSaved(int rank, long step, java.time.Duration took) {
    next.onCheckpointSaved(rank, step, took);
  }

  @Override public void onRankStart(int rank, long localParameters) {
    next.onRankStart(rank, localParameters);
    kv.set(WorkerKeys.ready(rank), String.valueOf(System.currentTimeMillis()));
  }

  @Override public void onRankStep(int rank, StepMetrics m, long totalSteps) {
    next.onRankStep(rank, m, totalSteps);
    kv.set(WorkerKeys.step(rank), String.valueOf(m.step()));
    if (m.step() == 1 && rank == 0) run.setIfAbsent(INITIAL_LOSS, String.valueOf(m.loss()));
    if (!stepped) {
      stepped = true;
      kv.set(WorkerKeys.firstStep(rank), m.step() + "@" + System.currentTimeMillis());
    }
  }

  @Override public void atStepBoundary(int rank, long step) {
    next.atStepBoundary(rank, step);
    String stopAt = kv.getOrNull(WorkerKeys.STOP_AT);
    if (stopAt != null && step >= StoreValues.parseLong(WorkerKeys.STOP_AT, stopAt)) throw new Rejoin(step);
  }

  int rank() { return rank; }
}
