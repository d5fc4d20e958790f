package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.util.Tensors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.bytedeco.pytorch.global.torch;

/**
 * Any saved tensors vs any wanted ones split over any ranks: loadable = same name and global shape; the ranks'
 * masks united (max) leave exactly the saved model tensors that no rank wants.
 */
class ResumeMatchProperties {
  private static final String[] NAMES = {"model/a", "model/b", "model/c", "model/d", "optim/exp_avg/a", "optim/exp_avg/b"};

  /** @param saved per name: 0 absent, else its first dimension; @param wanted per name: 0 not wanted, else dimension and rank */
  @Property(tries = 200)
  void matchesByNameAndShapeAndUnitesTheRanks(@ForAll @Size(6) List<@IntRange(min = 0, max = 2) Integer> saved,
                                              @ForAll @Size(6) List<@IntRange(min = 0, max = 2) Integer> wanted,
                                              @ForAll @Size(6) List<@IntRange(min = 0, max = 2) Integer> rankOf,
                                              @ForAll boolean freshOptimizer) {
    Map<String, Manifest.GlobalTensor> tensors = new HashMap<>();
    for (int i = 0; i < NAMES.length; i++) {
      if (saved.get(i) > 0) tensors.put(NAMES[i], new Manifest.GlobalTensor("F32", new long[] {saved.get(i), 2}, List.of()));
    }
    Manifest m = new Manifest(Manifest.FORMAT, Manifest.VERSION, 1, new CheckpointMeta.Mesh(1, 1, 1), 0, null, Map.of(), tensors, Map.of());
    List<String> index = ResumeMatch.modelIndex(m);
    double[] united = new double[index.size()];
    Set<String> wantedNames = new HashSet<>();
    try (org.bytedeco.javacpp.PointerScope scope = new org.bytedeco.javacpp.PointerScope()) {
      for (int rank = 0; rank < 3; rank++) {
        List<StateEntry> mine = new ArrayList<>();
        for (int i = 0; i < NAMES.length; i++) {
          if (wanted.get(i) == 0 || rankOf.get(i) != rank) continue;
          mine.add(StateEntry.whole(NAMES[i], Tensors.empty(torch.ScalarType.Float, wanted.get(i) * 2L).view(wanted.get(i), 2), true));
          wantedNames.add(NAMES[i]);
        }
        ResumeMatch r = ResumeMatch.of(m, mine, freshOptimizer);
        for (StateEntry e : mine) {
          int i = List.of(NAMES).indexOf(e.name());
          boolean skipped = freshOptimizer && e.name().startsWith(ResumeMatch.OPTIMIZER_PREFIX);
          boolean loads = !skipped && saved.get(i).equals(wanted.get(i));
          assertThat(r.loadable().contains(e)).as(e.name()).isEqualTo(loads);
          assertThat(r.missing().contains(e.name())).isEqualTo(!skipped && saved.get(i) == 0);
          assertThat(r.misshapen().stream().anyMatch(s -> s.startsWith(e.name() + " ")))
              .isEqualTo(!skipped && saved.get(i) > 0 && !saved.get(i).equals(wanted.get(i)));
        }
        double[] mask = ResumeMatch.wantedMask(index, mine);
        for (int k = 0; k < mask.length; k++) united[k] = Math.max(united[k], mask[k]);
      }
    }
    List<String> expected = index.stream().filter(n -> !wantedNames.contains(n)).toList();
    assertThat(ResumeMatch.unwanted(index, united)).isEqualTo(expected);
    assertThat(index).allMatch(n -> n.startsWith(ResumeMatch.MODEL_PREFIX));
  }
}
