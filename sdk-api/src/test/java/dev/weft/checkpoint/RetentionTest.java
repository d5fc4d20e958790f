package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which checkpoints a run deletes: beyond the newest {@code keep} of its own line, never a pinned best. */
class RetentionTest {
  private static final Set<Long> WRITTEN = Set.of(1L, 2L, 3L, 4L, 5L);
  private static final List<Long> COMMITTED = List.of(1L, 2L, 3L, 4L, 5L);

  @Test
  void keepsTheNewestKeep() {
    assertThat(Retention.toDelete(COMMITTED, 5, 2, OptionalLong.empty(), WRITTEN)).containsExactlyInAnyOrder(3L, 2L, 1L);
  }

  @Test
  void thePinnedBestStaysBesideKeepAndDoesNotCountAgainstIt() {
    assertThat(Retention.toDelete(COMMITTED, 5, 2, OptionalLong.empty(), WRITTEN, OptionalLong.of(2)))
        .containsExactlyInAnyOrder(3L, 1L);
    assertThat(Retention.toDelete(COMMITTED, 5, 1, OptionalLong.empty(), WRITTEN, OptionalLong.of(5)))
        .as("the best is the newest: keep 1 still keeps the one before it").containsExactlyInAnyOrder(3L, 2L, 1L);
  }
}
