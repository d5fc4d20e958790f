package dev.weft.k8s.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(name = "k8s", mixinStandardHelpOptions = true,
    description = "Run a spec on Kubernetes: render manifests, apply them, follow and delete the run.",
    subcommands = {RenderCommand.class, ApplyCommand.class, StatusCommand.class, LogsCommand.class, DeleteCommand.class})
public final class K8sCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override public void run() {
    throw new ParameterException(spec.commandLine(), "choose a subcommand: render, apply, status, logs or delete");
  }
}
