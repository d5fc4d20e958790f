package dev.weft.checkpoint;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How this rank's wanted state matches a checkpoint's tensors, before anything is read (pure): the entries that
 * can be loaded (same name, same global shape), the wanted ones the checkpoint lacks, and those saved with
 * another global shape. The model's whole name set is this rank's part only; the run unites the ranks' parts
 * ({@link #modelIndex}) to find checkpoint tensors that no rank wants.
 */
public record ResumeMatch(List<StateEntry> loadable, List<String> missing, List<String> misshapen) {
  public static final String MODEL_PREFIX = "model/";
  public static final String OPTIMIZER_PREFIX = "optim/";

  /** Matches {@code wanted} against {@code m}; optimizer entries are left out when {@code freshOptimizer}. */
  public static ResumeMatch of(Manifest m, List<StateEntry> wanted, boolean freshOptimizer) {
    List<StateEntry> loadable = new ArrayList<>();
    List<String> missing = new ArrayList<>(), misshapen = new ArrayList<>();
    for (StateEntry e : wanted) {
      if (freshOptimizer && e.name().startsWith(OPTIMIZER_PREFIX)) continue;
      Manifest.GlobalTensor t = m.tensors().get(e.name());
      if (t == null) missing.add(e.name());
      else if (!Arrays.equals(t.shape(), e.slice().globalShape())) {
        misshapen.add(e.name() + " " + Arrays.toString(t.shape()) + " saved, " + Arrays.toString(e.slice().globalShape()) + " wanted");
      } else loadable.add(e);
    }
    return new ResumeMatch(List.copyOf(loadable), List.copyOf(missing), List.copyOf(misshapen));
  }

  /** Whether every wanted entry can be loaded. */
  public boolean complete() { return missing.isEmpty() && misshapen.isEmpty(); }

  /** The checkpoint's model tensor names in a fixed order, the index space of {@link #wantedMask}. */
  public static List<String> modelIndex(Manifest m) {
    return m.tensors().keySet().stream().filter(n -> n.startsWith(MODEL_PREFIX)).sorted().toList();
  }

  /** 1 at each position of {@code index} that this rank wants (whatever its shape), else 0. */
  public static double[] wantedMask(List<String> index, List<StateEntry> wanted) {
    java.util.Set<String> names = new java.util.HashSet<>();
    for (StateEntry e : wanted) names.add(e.name());
    double[] mask = new double[index.size()];
    for (int i = 0; i < mask.length; i++) mask[i] = names.contains(index.get(i)) ? 1 : 0;
    return mask;
  }

  /** The names of {@code index} whose united mask is 0: saved, but no rank of this model has them. */
  public static List<String> unwanted(List<String> index, double[] unitedMask) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < unitedMask.length; i++) if (unitedMask[i] == 0) out.add(index.get(i));
    return out;
  }

  /** A few names of a list and how many in all, for one line. */
  public static String some(List<String> names) {
    if (names.size() <= 3) return String.join(", ", names);
    return String.join(", ", names.subList(0, 3)) + " and " + (names.size() - 3) + " more";
  }
}
