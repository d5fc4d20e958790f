package dev.weft.k8s.render;

import dev.weft.spec.SpecException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Where a run goes: which job object carries the workers. */
public enum Target {
  PYTORCHJOB("Kubeflow training-operator PyTorchJob (kubeflow.org/v1); the only target for elastic runs"),
  TRAINJOB("Kubeflow Trainer v2 TrainJob with its own TrainingRuntime (trainer.kubeflow.org/v1alpha1)"),
  JOBSET("JobSet (jobset.x-k8s.io/v1alpha2)"),
  JOB("plain Indexed Job and a headless Service; needs no operator");

  private final String description;

  Target(String description) { this.description = description; }

  public String description() { return description; }

  public String cliName() { return name().toLowerCase(Locale.ROOT); }

  public static Target parse(String s) {
    for (Target t : values()) if (t.cliName().equalsIgnoreCase(s.trim())) return t;
    throw new SpecException("--target", "'" + s + "' is not a target; use one of "
        + Arrays.stream(values()).map(Target::cliName).collect(Collectors.joining(", ")));
  }
}
