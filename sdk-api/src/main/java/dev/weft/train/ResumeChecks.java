package dev.weft.train;

import dev.weft.checkpoint.Checkpoint;
import dev.weft.checkpoint.ResumeMatch;
import dev.weft.checkpoint.StateEntry;
import dev.weft.comm.Distributed;
import dev.weft.comm.ReduceOp;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Tensors;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.bytedeco.pytorch.Tensor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A resume loads only a checkpoint that describes this run's model and optimizer: the same tensor names with the
 * same global shapes, every rank's parts together (no saved tensor left over, none wanted missing), and the same
 * optimizer. A mismatch is one line naming both sides, the same verdict on every rank, before any step.
 * {@code checkpoint.resetOptimizer} loads the weights with fresh optimizer state; {@code checkpoint.allowPartial}
 * loads the tensors that match and names the ones skipped.
 */
final class ResumeChecks {
  private static final Logger log = LoggerFactory.getLogger(ResumeChecks.class);

  private ResumeChecks() {}

  /** The optimizer the checkpoint's state was made by: its own record, else (older manifests) its spec's. */
  static String savedOptimizer(Checkpoint c, TrainingSpec saved) {
    Object kind = c.manifest().state() == null ? null : c.manifest().state().get(TrainingCheckpoints.OPTIMIZER_KEY);
    return kind instanceof String s ? s : saved.train().optimizer();
  }

  /** Refuses another optimizer's state unless the run resets it. */
  static void requireSameOptimizer(TrainingSpec spec, Checkpoint c, TrainingSpec saved) {
    String was = savedOptimizer(c, saved), now = spec.train().optimizer();
    if (was.equals(now) || spec.checkpoint().resetOptimizer()) return;
    throw new SpecException("train.optimizer", c.dir() + " holds " + was + " optimizer state, this run asks for " + now
        + "; resume with train.optimizer=" + was + ", or give --reset-optimizer (checkpoint.resetOptimizer) to load the"
        + " weights with fresh " + now + " state");
  }

  /**
   * The entries of {@code wanted} to load from {@code c}: all of them when the checkpoint matches the model exactly
   * (collective over the world: every rank must call it), the matching ones with {@code checkpoint.allowPartial}.
   */
  static List<StateEntry> loadable(TrainingSpec spec, Checkpoint c, TrainingSpec saved, List<StateEntry> wanted, Distributed dist) {
    boolean reset = spec.checkpoint().resetOptimizer();
    ResumeMatch match = ResumeMatch.of(c.manifest(), wanted, reset);
    List<String> index = ResumeMatch.modelIndex(c.manifest());
    double[] mask = ResumeMatch.wantedMask(index, wanted);
    double[] all = new double[mask.length + 2];
    System.arraycopy(mask, 0, all, 0, mask.length);
    all[mask.length] = match.complete() ? 0 : 1; // any rank wanting what the checkpoint lacks
    all[mask.length + 1] = index.size(); // the ranks resolved checkpoints with as many tensors (else: requireSameStart)
    Tensor t = Tensors.ofDoubles(all);
    dist.world().allReduce(t, ReduceOp.MAX);
    double[] united = Tensors.toDoubles(t);
    if (united[mask.length + 1] != index.size()) return match.loadable(); // different checkpoints: the start check names it
    List<String> unwanted = ResumeMatch.unwanted(index, java.util.Arrays.copyOf(united, mask.length));
    boolean exact = unwanted.isEmpty() && united[mask.length] == 0;
    if (exact) return match.loadable();
    List<String> differ = new ArrayList<>();
    if (!unwanted.isEmpty()) differ.add("saved but not in this model: " + ResumeMatch.some(unwanted));
    if (!match.missing().isEmpty()) differ.add("not saved: " + ResumeMatch.some(match.missing()));
    if (!match.misshapen().isEmpty()) differ.add("other global shape: " + ResumeMatch.some(match.misshapen()));
    if (differ.isEmpty()) differ.add("another rank's tensors differ");
    String both = c.dir() + " holds a " + describe(saved) + ", this run builds a " + describe(spec) + " (" + String.join("; ", differ) + ")";
    if (!spec.checkpoint().allowPartial()) {
      throw new SpecException("checkpoint.resume", both + "; resume with the checkpoint's model settings, or give --allow-partial"
          + " (checkpoint.allowPartial) to load the tensors that match");
    }
    log.warn("checkpoint.allowPartial: loading {} of {} tensors on rank {}; {}", match.loadable().size(), wanted.size(), dist.rank(), both);
    return match.loadable();
  }

  private static String describe(TrainingSpec s) {
    return "model.factory=" + s.model().factory() + " model.config=" + new TreeMap<>(s.model().config());
  }
}
