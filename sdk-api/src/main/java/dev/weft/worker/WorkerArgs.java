package dev.weft.worker;

import dev.weft.error.BadInputException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code worker} is given: {@code --spec FILE [--run-dir DIR] [--timeout S] [--set PATH=VALUE]... [--node-addr ADDR]}
 * ({@code --name=value} too). Launchers build these lines, the {@code weft worker} command and a worker process read them.
 */
public record WorkerArgs(Path spec, Path runDir, int timeoutSeconds, List<String> overrides, String nodeAddr) {
  /** The longest wait for peers and collectives a worker accepts (a day). */
  static final int MAX_TIMEOUT_S = 86_400;

  public static final Path DEFAULT_RUN_DIR = Path.of("run");
  public static final int DEFAULT_TIMEOUT_S = 120;

  public WorkerArgs {
    if (timeoutSeconds < 1 || timeoutSeconds > MAX_TIMEOUT_S) {
      throw new BadInputException("worker: --timeout " + timeoutSeconds + " must be 1 to " + MAX_TIMEOUT_S
          + " seconds (how long the ranks wait for their peers and collectives)");
    }
    overrides = List.copyOf(overrides);
  }

  public static WorkerArgs parse(List<String> args) {
    Path spec = null, runDir = DEFAULT_RUN_DIR;
    int timeout = DEFAULT_TIMEOUT_S;
    String nodeAddr = null;
    List<String> overrides = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i), name = a, value;
      int eq = a.indexOf('=');
      if (a.startsWith("--") && eq > 0) {
        name = a.substring(0, eq);
        value = a.substring(eq + 1);
      } else if (i + 1 < args.size()) {
        value = args.get(++i);
      } else {
        throw new BadInputException("worker: " + a + " needs a value (worker --spec FILE [--run-dir DIR] [--timeout S] [--set PATH=VALUE])");
      }
      switch (name) {
        case "--spec" -> spec = Path.of(value);
        case "--run-dir" -> runDir = Path.of(value);
        case "--timeout" -> timeout = seconds(value);
        case "--set" -> overrides.add(value);
        case "--node-addr" -> nodeAddr = value;
        default -> throw new BadInputException("worker: unknown option " + name + " (it takes --spec, --run-dir, --timeout, --set, --node-addr)");
      }
    }
    if (spec == null) throw new BadInputException("worker: --spec FILE is required");
    return new WorkerArgs(spec, runDir, timeout, overrides, nodeAddr);
  }

  /** These arguments as a command line that {@link #parse} reads back (without {@code --node-addr}: each host finds its own). */
  public List<String> argv() {
    List<String> out = new ArrayList<>(List.of("--spec", spec.toString(), "--run-dir", runDir.toString(), "--timeout",
        String.valueOf(timeoutSeconds)));
    for (String o : overrides) out.addAll(List.of("--set", o));
    return out;
  }

  private static int seconds(String v) {
    try {
      return Integer.parseInt(v.strip());
    } catch (NumberFormatException e) {
      throw new BadInputException("worker: --timeout " + v + " is not a whole number of seconds");
    }
  }
}
