package dev.weft.launch;

/**
 * The class a worker process runs ({@code weft worker}). Launchers below the CLI layer start it by name, so
 * the name lives here once; {@code WorkerMainTest} checks it still names the CLI's main class.
 */
public final class WorkerMain {
  public static final String CLASS = "dev.weft.cli.WeftMain";

  private WorkerMain() {}
}
