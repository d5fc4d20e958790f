package dev.weft.comm;

import java.util.HashMap;
import java.util.Map;

/**
 * The environment a worker runs with: the process's own, overlaid by the variables a warm standby was handed when it
 * became the worker (a process's environment cannot change once it runs). Kept here, below the training loop, so a
 * rank reads its run's variables (the run token among them) without knowing how its process was started.
 */
public final class WorkerEnv {
  private static volatile Map<String, String> handed = Map.of();

  private WorkerEnv() {}

  /** A standby became its worker: {@code env} joins the process's own variables. */
  public static void overlay(Map<String, String> env) { handed = Map.copyOf(env); }

  /** Whether this process's variables were overlaid by a handoff. */
  public static boolean overlaid() { return !handed.isEmpty(); }

  public static Map<String, String> get() {
    if (handed.isEmpty()) return System.getenv();
    Map<String, String> env = new HashMap<>(System.getenv());
    env.putAll(handed);
    return Map.copyOf(env);
  }
}
