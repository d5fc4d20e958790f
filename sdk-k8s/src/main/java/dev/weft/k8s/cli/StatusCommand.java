package dev.weft.k8s.cli;

import dev.weft.k8s.apply.Cluster;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

@Command(name = "status", mixinStandardHelpOptions = true, description = "Show the run's job, its conditions and its pods.")
public final class StatusCommand extends RunCommand {
  @Override void act(Cluster c, String namespace, String name, PrintWriter out) { c.status(namespace, name, out); }
}
