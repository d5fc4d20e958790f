package dev.weft.k8s.katib;

import dev.weft.k8s.crd.Experiment;
import dev.weft.spec.SpecException;
import java.util.Arrays;
import java.util.List;

/**
 * One {@code --search PATH=RANGE}: {@code train.lr=1e-4:1e-3} (double), {@code train.warmup=5:50} (int)
 * or {@code parallel.schedule=gpipe,1f1b} (categorical).
 */
public record SearchParameter(String path, String type, String min, String max, List<String> values) {
  public static SearchParameter parse(String text) {
    int eq = text.indexOf('=');
    if (eq <= 0 || eq == text.length() - 1) {
      throw new SpecException("--search", "'" + text + "' is not PATH=MIN:MAX or PATH=A,B,C (e.g. train.lr=1e-4:1e-3)");
    }
    String path = text.substring(0, eq).trim();
    String range = text.substring(eq + 1).trim();
    if (!path.matches("[A-Za-z][A-Za-z0-9]*(\\.[A-Za-z][A-Za-z0-9]*)+")) {
      throw new SpecException("--search", "'" + path + "' is not a spec path such as train.lr");
    }
    if (range.contains(",")) {
      return new SearchParameter(path, "categorical", null, null, Arrays.stream(range.split(",")).map(String::trim).toList());
    }
    String[] mm = range.split(":");
    if (mm.length != 2) throw new SpecException("--search", "'" + range + "' is not MIN:MAX or A,B,C");
    boolean integers = mm[0].matches("-?\\d+") && mm[1].matches("-?\\d+");
    try {
      double lo = Double.parseDouble(mm[0]);
      double hi = Double.parseDouble(mm[1]);
      if (!(lo < hi)) throw new SpecException("--search", path + ": MIN " + mm[0] + " must be below MAX " + mm[1]);
    } catch (NumberFormatException e) {
      throw new SpecException("--search", path + ": '" + range + "' is not a numeric MIN:MAX");
    }
    return new SearchParameter(path, integers ? "int" : "double", mm[0].trim(), mm[1].trim(), null);
  }

  /** The Katib parameter name: the path in camel case ({@code train.lr} → {@code trainLr}). */
  public String name() {
    String[] parts = path.split("\\.");
    StringBuilder sb = new StringBuilder(parts[0]);
    for (int i = 1; i < parts.length; i++) sb.append(Character.toUpperCase(parts[i].charAt(0))).append(parts[i].substring(1));
    return sb.toString();
  }

  /** Sample values to check the path against the spec: the bounds, or every category. */
  public List<String> probes() { return values != null ? values : List.of(min, max); }

  public Experiment.Parameter toKatib() {
    return new Experiment.Parameter(name(), type, new Experiment.FeasibleSpace(min, max, values));
  }

  /** The worker argument that applies this trial's value. */
  public List<String> workerArgs() { return List.of("--set", path + "=${trialParameters." + name() + "}"); }
}
