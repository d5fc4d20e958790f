package dev.weft.k8s.cli;

import dev.weft.k8s.apply.Cluster;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

@Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete every object of the run.")
public final class DeleteCommand extends RunCommand {
  @Override void act(Cluster c, String namespace, String name, PrintWriter out) {
    for (String d : c.delete(namespace, name)) out.println("deleted " + d);
  }
}
