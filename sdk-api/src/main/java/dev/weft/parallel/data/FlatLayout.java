package dev.weft.parallel.data;

import java.util.ArrayList;
import java.util.List;

/**
 * Where each parameter lives in flat, contiguous buffers (what FSDP calls flat parameters), and
 * which part of each buffer each data-parallel rank owns. Parameters go into buckets in reverse
 * order (the order backward produces their gradients); a bucket closes once it reaches the target
 * size or at a unit boundary (a layer under ZeRO-3), and is padded to a multiple of dp so every
 * rank owns an equal contiguous shard. Pure arithmetic.
 */
public record FlatLayout(List<Bucket> buckets, int dp) {
  /** One parameter's place: index into the caller's list, offset inside its bucket, element count. */
  public record Slot(int param, long offset, long numel) {}

  /** A flat buffer of {@code padded} elements holding {@code slots}; rank r owns [r·shard, (r+1)·shard). */
  public record Bucket(List<Slot> slots, long used, long padded, int dp) {
    public long shard() { return padded / dp; }
    public long shardStart(int rank) { return rank * shard(); }
  }

  /**
   * @param numels element count of each parameter, in registration order
   * @param units unit id of each parameter (a bucket never spans two units); all equal for no boundary
   * @param targetElements close a bucket once it holds at least this many elements
   */
  public static FlatLayout plan(long[] numels, int[] units, long targetElements, int dp) {
    return plan(numels, units, targetElements, dp, new boolean[numels.length]);
  }

  /**
   * As above; an {@code alone} parameter gets a bucket of its own, so two pipeline stages holding the
   * same tied weight own the same range of it on every data-parallel rank.
   */
  public static FlatLayout plan(long[] numels, int[] units, long targetElements, int dp, boolean[] alone) {
    return plan(numels, units, targetElements, alone, new boolean[numels.length], dp, dp);
  }

  /**
   * As above; an {@code expert} parameter (expert parallelism) never shares a bucket with a non-expert one, and its
   * buckets are split over the {@code expertDp} ranks that hold the same experts instead of {@code dp}.
   */
  public static FlatLayout plan(long[] numels, int[] units, long targetElements, boolean[] alone, boolean[] expert, int dp,
                                int expertDp) {
    if (numels.length != units.length) throw new IllegalArgumentException("numels and units differ in length");
    if (dp < 1 || expertDp < 1 || targetElements < 1) throw new IllegalArgumentException("dp and targetElements must be ≥ 1");
    List<Bucket> out = new ArrayList<>();
    List<Slot> cur = new ArrayList<>();
    long used = 0;
    for (int i = numels.length - 1; i >= 0; i--) {
      int first = cur.isEmpty() ? i : cur.get(0).param();
      boolean newUnit = !cur.isEmpty() && (units[first] != units[i] || alone[i] || expert[first] != expert[i]);
      if (newUnit) {
        out.add(close(cur, used, expert[first] ? expertDp : dp));
        cur = new ArrayList<>();
        used = 0;
      }
      cur.add(new Slot(i, used, numels[i]));
      used += numels[i];
      if (used >= targetElements || alone[i]) {
        out.add(close(cur, used, expert[i] ? expertDp : dp));
        cur = new ArrayList<>();
        used = 0;
      }
    }
    if (!cur.isEmpty()) out.add(close(cur, used, expert[cur.get(0).param()] ? expertDp : dp));
    return new FlatLayout(List.copyOf(out), dp);
  }

  private static Bucket close(List<Slot> slots, long used, int dp) {
    long padded = Math.max(dp, ((used + dp - 1) / dp) * dp);
    return new Bucket(List.copyOf(slots), used, padded, dp);
  }

  public long totalPadded() { return buckets.stream().mapToLong(Bucket::padded).sum(); }
  public long totalUsed() { return buckets.stream().mapToLong(Bucket::used).sum(); }
}
