package dev.weft.k8s.cli;

import dev.weft.k8s.apply.Cluster;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A subcommand about one run already on the cluster (status, logs, delete). */
abstract class RunCommand implements Callable<Integer> {
  @Spec CommandSpec cmd;
  @Mixin RunRef run;
  @Mixin ClusterOptions cluster;

  /** Does the work against a connected cluster, printing to {@code out}. */
  abstract void act(Cluster c, String namespace, String name, PrintWriter out);

  @Override public final Integer call() {
    PrintWriter out = cmd.commandLine().getOut();
    return Commands.run(cmd.commandLine().getErr(), () -> {
      try (Cluster c = Cluster.connect(cluster.context)) {
        act(c, run.namespace, run.name, out);
      }
      out.flush();
      return Commands.OK;
    });
  }
}
