package dev.weft.k8s.cli;

import dev.weft.k8s.apply.Cluster;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete every object of the run.")
public final class DeleteCommand implements Callable<Integer> {
  @Spec CommandSpec cmd;
  @Mixin RunRef run;
  @Mixin ClusterOptions cluster;

  @Override public Integer call() {
    var out = cmd.commandLine().getOut();
    return Commands.run(cmd.commandLine().getErr(), () -> {
      try (Cluster c = Cluster.connect(cluster.context)) {
        for (String d : c.delete(run.namespace, run.name)) out.println("deleted " + d);
      }
      out.flush();
      return Commands.OK;
    });
  }
}
