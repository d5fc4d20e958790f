package dev.weft.k8s.cli;

import dev.weft.k8s.apply.Cluster;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

@Command(name = "logs", mixinStandardHelpOptions = true, description = "Print every worker pod's log, prefixed by pod name.")
public final class LogsCommand extends RunCommand {
  @Override void act(Cluster c, String namespace, String name, PrintWriter out) { c.logs(namespace, name, out); }
}
