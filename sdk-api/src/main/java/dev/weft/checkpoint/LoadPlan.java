package dev.weft.checkpoint;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * For each wanted piece, the saved pieces that hold some of its elements and the copy runs that
 * move them. Pure: checks names and global shapes against the manifest and that every wanted
 * element is covered, before any file is read.
 */
public final class LoadPlan {
  /** Copy {@code runs} from {@code piece} (saved as {@code savedDtype}) into wanted piece {@code wanted}. */
  public record Step(int wanted, Manifest.Piece piece, DType savedDtype, List<CopyRun> runs) {
    /** First and one-past-last saved element the runs touch. */
    long srcFirst() { return runs.stream().mapToLong(CopyRun::src).min().orElse(0); }
    long srcEnd() { return runs.stream().mapToLong(r -> r.src() + r.length()).max().orElse(0); }
  }

  /** A wanted piece by name and slice. */
  public record Want(String name, TensorSlice slice) {}

  private LoadPlan() {}

  public static List<Step> plan(Manifest m, List<Want> wanted, String where) {
    List<Step> steps = new ArrayList<>();
    for (int i = 0; i < wanted.size(); i++) {
      Want w = wanted.get(i);
      Manifest.GlobalTensor t = m.tensors().get(w.name());
      if (t == null) {
        throw new CheckpointException(where + " holds no tensor '" + w.name() + "' (it holds " + m.tensors().size()
            + " tensors, e.g. " + m.tensors().keySet().stream().limit(3).toList() + "); was it saved with a different model?");
      }
      if (!Arrays.equals(t.shape(), w.slice().globalShape())) {
        throw new CheckpointException(where + ": tensor '" + w.name() + "' was saved with global shape " + Arrays.toString(t.shape())
            + " but is wanted as " + Arrays.toString(w.slice().globalShape()) + "; the model config must match the checkpoint's");
      }
      DType dt = DType.fromSafetensors(t.dtype());
      List<CopyRun> all = new ArrayList<>();
      for (Manifest.Piece p : t.pieces()) {
        List<CopyRun> runs = SliceIntersection.plan(p.slice(t.shape()), w.slice());
        if (!runs.isEmpty()) {
          steps.add(new Step(i, p, dt, runs));
          all.addAll(runs);
        }
      }
      long covered = covered(all);
      if (covered != w.slice().flatLength()) {
        throw new CheckpointException(where + ": only " + covered + " of the " + w.slice().flatLength() + " wanted elements of '"
            + w.name() + "' (" + w.slice() + ") were saved; the checkpoint is missing a shard");
      }
    }
    return steps;
  }

  /** How many distinct destination elements the runs cover. */
  static long covered(List<CopyRun> runs) {
    List<CopyRun> sorted = new ArrayList<>(runs);
    sorted.sort(Comparator.comparingLong(CopyRun::dst));
    long total = 0, reach = 0;
    for (CopyRun r : sorted) {
      long start = Math.max(r.dst(), reach), end = r.dst() + r.length();
      if (end > start) {
        total += end - start;
        reach = end;
      }
    }
    return total;
  }
}
