package dev.weft.launch;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.weft.comm.WorkerEnv;
import dev.weft.util.Json;
import java.util.List;
import java.util.Map;

/**
 * What turns a warm standby JVM into one rank's worker: the worker command's arguments and the {@code WEFT_*}
 * environment a cold worker would have been started with, sent as one JSON line on the standby's stdin. A
 * process's environment cannot change once it runs, so the worker reads it through {@link #workerEnv()} ({@link WorkerEnv}).
 */
public record StandbyHandoff(List<String> args, Map<String, String> env) {
  public StandbyHandoff {
    args = List.copyOf(args);
    env = Map.copyOf(env);
  }

  public String line() {
    try {
      return Json.PLAIN.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a handoff is plain strings", e);
    }
  }

  public static StandbyHandoff parse(String line) {
    try {
      return Json.PLAIN.readValue(line, StandbyHandoff.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not a standby handoff: " + line, e);
    }
  }

  /** This standby now is the worker {@code h} describes: its variables join the process's own. */
  public static void accept(StandbyHandoff h) { WorkerEnv.overlay(h.env()); }

  /** Whether this process became its worker by a handoff (it was a warm standby). */
  public static boolean handedOff() { return WorkerEnv.overlaid(); }

  /** The environment this worker runs with: the process's own, overlaid by a handoff's variables. */
  public static Map<String, String> workerEnv() { return WorkerEnv.get(); }
}
