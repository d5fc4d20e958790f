package dev.weft.k8s.cli;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** A run on the cluster: its spec name and namespace. */
public final class RunRef {
  @Parameters(index = "0", paramLabel = "NAME", description = "The run's name (the spec's name).")
  String name;

  @Option(names = {"-n", "--namespace"}, defaultValue = "default", description = "Namespace (default: ${DEFAULT-VALUE}).")
  String namespace;
}
