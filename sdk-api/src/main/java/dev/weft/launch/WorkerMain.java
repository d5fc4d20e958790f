package dev.weft.launch;

/**
 * The class a worker process runs ({@code weft worker}), and the subcommand of a warm standby worker
 * ({@code weft standby}, see {@link WarmWorker}). Launchers below the CLI layer start them by name, so the
 * names live here once; {@code WorkerMainTest} checks they still name the CLI's main class and commands.
 */
public final class WorkerMain {
  public static final String CLASS = "dev.weft.cli.WeftMain";
  public static final String STANDBY = "standby";

  private WorkerMain() {}
}
