package dev.weft.k8s.cli;

import dev.weft.cli.CliExtension;

/** Contributes {@code weft k8s} to the Weft CLI (registered in META-INF/services). */
public final class K8sExtension implements CliExtension {
  @Override public String name() { return "k8s"; }

  @Override public Object command() { return new K8sCommand(); }
}
