package dev.weft.elastic;

import dev.weft.launch.WarmWorker;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * This node's warm standby workers ({@code elastic.standby} of them): a generation takes them first for its ranks
 * (a handoff instead of a new JVM), and the agent starts them (and replacements) once its workers are past their first step
 * (not during a restart, when they would compete with the new workers for the cores). A standby that dies while
 * it waits is said once and replaced; after {@link #MAX_DEATHS} such deaths in a row (libtorch cannot load here,
 * say) this node stops starting them and its workers are new JVMs, as with {@code elastic.standby: 0}.
 */
final class Standbys implements AutoCloseable {
  static final int MAX_DEATHS = 3;

  private final int count;
  private final Path specFile;
  private final Map<String, String> env;
  private final PrintStream console;
  private final Consumer<String> say;
  private final List<WarmWorker> ready = new ArrayList<>();
  private int deathsInARow;

  /** @param env the variables every worker of this node gets whatever its rank (threads, log format, OMP policy) */
  Standbys(int count, Path specFile, Map<String, String> env, PrintStream console, Consumer<String> say) {
    this.count = count;
    this.specFile = specFile;
    this.env = Map.copyOf(env);
    this.console = console;
    this.say = say;
  }

  /** Replaces the dead and starts standbys up to the count; a standby that cannot start is said, not fatal. */
  synchronized void refill() {
    ready.removeIf(this::died);
    while (ready.size() < count && deathsInARow < MAX_DEATHS) {
      try {
        WarmWorker w = WarmWorker.start(specFile, env, LocalWorkers::isOperatorVariable, console);
        ready.add(w);
        say.accept("warm standby worker started (pid " + w.pid() + ")");
      } catch (IOException e) {
        say.accept("cannot start a warm standby worker (" + e.getMessage() + "): the next restart starts a new JVM");
        return;
      }
    }
  }

  /** A live standby for one rank, or null when none is left (the rank gets a new JVM). */
  synchronized WarmWorker take() {
    ready.removeIf(this::died);
    if (ready.isEmpty()) return null;
    deathsInARow = 0; // it lived to be used
    return ready.remove(0);
  }

  private boolean died(WarmWorker w) {
    if (w.process().isAlive()) return false;
    deathsInARow++;
    String what = deathsInARow < MAX_DEATHS ? "replacing it"
        : MAX_DEATHS + " in a row: this node starts no more standbys (its workers start as new JVMs; see the [standby] lines)";
    say.accept("warm standby worker pid " + w.pid() + " exited while waiting (exit code " + w.process().exitValue() + "): " + what);
    return true;
  }

  @Override
  public synchronized void close() {
    for (WarmWorker w : ready) w.process().destroyForcibly();
    ready.clear();
  }
}
