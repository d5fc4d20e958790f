package dev.weft.k8s.cli;

import dev.weft.k8s.apply.Cluster;
import dev.weft.k8s.check.ManifestCheck;
import dev.weft.k8s.render.ManifestWriter;
import dev.weft.k8s.render.Rendered;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "render", mixinStandardHelpOptions = true,
    description = "Write the run's manifests and a kustomization.yaml to DIR (or all of them to stdout).")
public final class RenderCommand implements Callable<Integer> {
  @Spec CommandSpec cmd;
  @Mixin RenderOptions options;
  @Mixin ClusterOptions cluster;

  @Option(names = {"-o", "--output"}, paramLabel = "DIR", description = "Directory to write (created if missing).")
  Path output;

  @Option(names = "--check", description = "Also check the manifests: PodSecurity \"restricted\" on every pod (Weft's own check),"
      + " and the kubeconfig's cluster's validation and admission (a server-side dry run; nothing is stored).")
  boolean check;

  @Override public Integer call() {
    var out = cmd.commandLine().getOut();
    var err = cmd.commandLine().getErr();
    return Commands.run(err, () -> {
      Rendered r = options.render();
      Commands.warn(err, r);
      if (output == null && !check) {
        out.print(ManifestWriter.stream(r));
      } else if (output != null) {
        for (Path f : ManifestWriter.write(r, output)) out.println(f);
      }
      out.flush();
      return check ? check(r, out, err) : Commands.OK;
    });
  }

  /** Prints what fails, one line each; 0 when nothing does, 1 otherwise. */
  private int check(Rendered r, PrintWriter out, PrintWriter err) {
    List<String> failed = new ArrayList<>();
    for (String v : ManifestCheck.restricted(r, ManifestCheck.template(ManifestCheck.WEFT_INIT))) failed.add("restricted: " + v);
    List<String> withOperatorDefault = ManifestCheck.restricted(r, ManifestCheck.template(ManifestCheck.OPERATOR_DEFAULT_INIT));
    if (failed.isEmpty() && !withOperatorDefault.isEmpty()) {
      err.println("warning: training-operator's built-in init container init-pytorch (added to the Workers) breaks PodSecurity"
          + " restricted; give the operator Weft's template (docs/kubernetes.md, Preemption and spot nodes)");
    }
    Cluster.DryRun dry;
    try (Cluster c = Cluster.connect(cluster.context)) {
      dry = c.dryRun(r);
    }
    for (String s : dry.skipped()) out.println("skipped " + s);
    for (String refused : dry.refused()) failed.add("server: " + refused);
    for (String f : failed) err.println("check failed: " + f);
    if (failed.isEmpty()) {
      out.println("check: " + dry.accepted().size() + " objects accepted by the server's dry run; every pod meets PodSecurity"
          + " restricted (checked by Weft)");
    }
    out.flush();
    err.flush();
    return failed.isEmpty() ? Commands.OK : Commands.CLUSTER_ERROR;
  }
}
