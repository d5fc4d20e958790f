package dev.weft.checkpoint;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Which committed checkpoints a run may delete after committing step {@code current} (pure). Only
 * the run's own line counts against {@code keep}: the checkpoints it wrote and those at or before the
 * one it resumed from. The resumed-from checkpoint itself, anything newer than it that this run did
 * not write (stale steps of an earlier attempt), and anything at or after {@code current} are never
 * deleted. Without a resume, checkpoints this run did not write are left alone. A pinned step (the best by eval loss) is
 * kept beside the newest {@code keep} and does not count against it.
 */
final class Retention {
  private Retention() {}

  /** Steps to delete from {@code committed} (steps present, any order); {@code keep <= 0} keeps all. */
  static List<Long> toDelete(List<Long> committed, long current, int keep, OptionalLong resumedFrom, Set<Long> written) {
    return toDelete(committed, current, keep, resumedFrom, written, OptionalLong.empty());
  }

  /** As above, never deleting {@code pinned}. */
  static List<Long> toDelete(List<Long> committed, long current, int keep, OptionalLong resumedFrom, Set<Long> written,
                             OptionalLong pinned) {
    if (keep <= 0) return List.of();
    List<Long> line = committed.stream()
        .filter(s -> pinned.isEmpty() || s != pinned.getAsLong())
        .filter(s -> s <= current && (written.contains(s) || (resumedFrom.isPresent() && s <= resumedFrom.getAsLong())))
        .sorted((a, b) -> Long.compare(b, a)).toList();
    return line.stream().skip(keep)
        .filter(s -> s < current && (resumedFrom.isEmpty() || s != resumedFrom.getAsLong()))
        .toList();
  }
}
