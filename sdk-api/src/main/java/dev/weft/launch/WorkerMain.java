package dev.weft.launch;

/**
 * The class a worker process runs and its two commands: {@code worker} (a rank, or a host's ranks) and {@code standby}
 * (a warm worker, see {@link WarmWorker}). Launchers start them by name, so the names live here once; the class is
 * {@code dev.weft.worker.WorkerProcess}, in sdk-api (no {@code weft} command needed), named as a string because it
 * sits in a layer above this one.
 */
public final class WorkerMain {
  public static final String CLASS = "dev.weft.worker.WorkerProcess";
  public static final String WORKER = "worker";
  public static final String STANDBY = "standby";

  private WorkerMain() {}
}
