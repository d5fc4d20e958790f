package dev.weft.k8s.cli;

import dev.weft.k8s.render.ManifestWriter;
import dev.weft.k8s.render.Rendered;
import java.nio.file.Path;
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

  @Option(names = {"-o", "--output"}, paramLabel = "DIR", description = "Directory to write (created if missing).")
  Path output;

  @Override public Integer call() {
    var out = cmd.commandLine().getOut();
    return Commands.run(cmd.commandLine().getErr(), () -> {
      Rendered r = options.render();
      if (output == null) {
        out.print(ManifestWriter.stream(r));
      } else {
        for (Path f : ManifestWriter.write(r, output)) out.println(f);
      }
      out.flush();
      return Commands.OK;
    });
  }
}
