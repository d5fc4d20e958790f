package dev.weft.k8s.cli;

import picocli.CommandLine.Option;

/** Which cluster: the kubeconfig's current context unless --context says otherwise ($KUBECONFIG is honoured). */
public final class ClusterOptions {
  @Option(names = "--context", description = "kubeconfig context (default: the current one).")
  String context;
}
