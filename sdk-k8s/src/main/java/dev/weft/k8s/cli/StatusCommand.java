package dev.weft.k8s.cli;

import dev.weft.k8s.apply.Cluster;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "status", mixinStandardHelpOptions = true, description = "Show the run's job, its conditions and its pods.")
public final class StatusCommand implements Callable<Integer> {
  @Spec CommandSpec cmd;
  @Mixin RunRef run;
  @Mixin ClusterOptions cluster;

  @Override public Integer call() {
    var out = cmd.commandLine().getOut();
    return Commands.run(cmd.commandLine().getErr(), () -> {
      try (Cluster c = Cluster.connect(cluster.context)) {
        c.status(run.namespace, run.name, out);
      }
      out.flush();
      return Commands.OK;
    });
  }
}
