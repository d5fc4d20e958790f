package dev.weft.k8s.cli;

import dev.weft.k8s.apply.Cluster;
import dev.weft.k8s.render.Rendered;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "apply", mixinStandardHelpOptions = true,
    description = "Render the spec, check every object with the server's dry run, then server-side apply them; objects whose API the"
        + " cluster does not serve (PodMonitor, HPA, the Kueue label) are skipped with one line.")
public final class ApplyCommand implements Callable<Integer> {
  @Spec CommandSpec cmd;
  @Mixin RenderOptions options;
  @Mixin ClusterOptions cluster;

  @Override public Integer call() {
    var out = cmd.commandLine().getOut();
    return Commands.run(cmd.commandLine().getErr(), () -> {
      Rendered r = options.render();
      Commands.warn(cmd.commandLine().getErr(), r);
      try (Cluster c = Cluster.connect(cluster.context)) {
        Cluster.Applied a = c.apply(r);
        for (String skipped : a.skipped()) out.println("skipped " + skipped);
        for (String applied : a.applied()) out.println("applied " + applied);
      }
      out.flush();
      return Commands.OK;
    });
  }
}
