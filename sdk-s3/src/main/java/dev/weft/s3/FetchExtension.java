package dev.weft.s3;

import dev.weft.cli.CliExtension;

/** Contributes {@code weft fetch} to the Weft CLI (registered in META-INF/services). */
public final class FetchExtension implements CliExtension {
  @Override public String name() { return "fetch"; }

  @Override public Object command() { return new FetchCommand(); }
}
