package dev.weft.k8s.cli;

import dev.weft.k8s.apply.Cluster;
import dev.weft.k8s.render.Rendered;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "apply", mixinStandardHelpOptions = true,
    description = "Render the spec and server-side apply every object to the cluster (invalid specs never reach it).")
public final class ApplyCommand implements Callable<Integer> {
  @Spec CommandSpec cmd;
  @Mixin RenderOptions options;
  @Mixin ClusterOptions cluster;

  @Override public Integer call() {
    var out = cmd.commandLine().getOut();
    return Commands.run(cmd.commandLine().getErr(), () -> {
      Rendered r = options.render();
      try (Cluster c = Cluster.connect(cluster.context)) {
        for (String applied : c.apply(r)) out.println("applied " + applied);
      }
      out.flush();
      return Commands.OK;
    });
  }
}
