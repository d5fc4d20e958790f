package dev.weft.cli;

import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The spec file and its {@code --set} overrides, shared by every command that reads a spec. */
public final class SpecOptions {
  @Parameters(index = "0", paramLabel = "SPEC", description = "Training spec (YAML or JSON).")
  public Path spec;

  @Option(names = "--set", paramLabel = "PATH=VALUE", description = "Override a field, e.g. --set parallel.dp=2 (repeatable).")
  public List<String> overrides = new ArrayList<>();

  public TrainingSpec read() { return SpecIO.read(spec, overrides); }
}
