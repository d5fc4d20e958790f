package dev.weft.elastic;

import dev.weft.comm.Rendezvous;
import dev.weft.comm.StoreValues;
import dev.weft.metrics.StepMetrics;
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
  /** Restarts of the run so far, for the workers' metrics. */
  public static final String ENV_RESTARTS = "WEFT_RESTARTS";
  public static final String ENV_PREFIX = "WEFT_ELASTIC_PREFIX";
  /** Exit code of a worker that left at a step boundary for a new rendezvous round. */
  public static final int EXIT_REJOIN = 3;

  /** Thrown at the agreed step boundary; the worker command turns it into {@link #EXIT_REJOIN}. */
  public static final class Rejoin extends RuntimeException {
    public Rejoin(long step) { super("leaving after step " + step + " for a new rendezvous round", null, false, false); }
  }

  private final StepListener next;
  private final KeyValue kv;
  private final int rank;
  @SuppressWarnings("unused") // runs while the worker lives
  private final Heartbeat heartbeat;
  private boolean stepped;

  private ElasticWorker(StepListener next, KeyValue kv, int rank) {
    this.next = next;
    this.kv = kv;
    this.rank = rank;
    kv.set(WorkerKeys.started(rank), String.valueOf(System.currentTimeMillis()));
    this.heartbeat = Heartbeat.start(kv, WorkerKeys.heartbeat(rank), Duration.ofSeconds(1));
  }

  /** {@code next} itself when this worker was not started by an elastic agent. */
  public static StepListener wrap(StepListener next, int rank, Map<String, String> env, Duration timeout) {
    String endpoint = env.get(ENV_STORE);
    if (endpoint == null || endpoint.isBlank()) return next;
    Endpoint e = Endpoint.parse(endpoint);
    Rendezvous store = Rendezvous.connect(e.host(), e.port(), rank, false, timeout);
    return new ElasticWorker(next, new StoreKeyValue(store.prefixed(env.getOrDefault(ENV_PREFIX, ""))), rank);
  }

  @Override public void onStep(StepMetrics m, long totalSteps) { next.onStep(m, totalSteps); }

  @Override public void onMemory(int rank, long parameterBytes, long gradientBytes, long optimizerBytes) {
    next.onMemory(rank, parameterBytes, gradientBytes, optimizerBytes);
  }

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
