package dev.weft.cli;

import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code weft} command. Subcommands from other modules join through {@link CliExtension}. */
@Command(name = "weft", mixinStandardHelpOptions = true, versionProvider = WeftMain.Version.class,
    description = "Train large models from the JVM: data, tensor and pipeline parallelism, ZeRO, mixed precision.",
    subcommands = {TrainCommand.class, PlanCommand.class, WorkerCommand.class, StandbyCommand.class, DoctorCommand.class, ReportCommand.class, CheckpointCommand.class, ModelCommand.class,
        BenchCommand.class, DataCommand.class, EvalCommand.class, GenerateCommand.class, LineageCommand.class, CommandLine.HelpCommand.class})
public final class WeftMain implements Runnable {
  @CommandLine.Option(names = Errors.DEBUG, scope = CommandLine.ScopeType.INHERIT,
      description = "Print the stack trace of an error (for bug reports).")
  boolean debug;

  /** Exit code for a spec or command line that cannot run ({@link dev.weft.error.ExitCodes#BAD_INPUT}). */
  public static final int EXIT_BAD_INPUT = dev.weft.error.ExitCodes.BAD_INPUT;

  @Override
  public void run() {
    CommandLine.usage(this, System.out);
  }

  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new WeftMain());
    for (CliExtension ext : ServiceLoader.load(CliExtension.class)) cl.addSubcommand(ext.name(), ext.command());
    cl.setExecutionExceptionHandler(new Errors());
    cl.setParameterExceptionHandler(new Errors.BadArguments());
    return cl;
  }

  public static void main(String[] args) {
    dev.weft.log.LogFormat.current(); // WEFT_LOG_FORMAT=json turns every line into an object from the first one
    int code = commandLine().execute(args);
    System.out.flush();
    System.exit(code);
  }

  /** Reads the version from the jar manifest (or says it is a development build). */
  public static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = WeftMain.class.getPackage().getImplementationVersion();
      return new String[] {"weft " + (v == null ? "0.1.0-SNAPSHOT (development build)" : v),
          "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ")"};
    }
  }
}
