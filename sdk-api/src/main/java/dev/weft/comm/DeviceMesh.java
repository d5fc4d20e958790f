package dev.weft.comm;

import java.util.ArrayList;
import java.util.List;

/**
 * Rank ↔ (dp, pp, cp, tp) coordinates. tp varies fastest, then cp, then dp, then pp (Megatron's order
 * with context parallelism between tp and dp), so a tensor-parallel group is made of neighbouring ranks
 * and stays on one host when it can, and a context-parallel ring comes next. Expert parallelism and
 * HSDP do not add ranks: they are sub-groups of the dp group. Pure arithmetic: no communication here.
 */
public record DeviceMesh(int dp, int pp, int cp, int tp) {
  public enum Dim { DP, PP, CP, TP }

  public DeviceMesh {
    if (dp < 1 || pp < 1 || cp < 1 || tp < 1) {
      throw new IllegalArgumentException("mesh sizes must be ≥ 1: dp " + dp + ", pp " + pp + ", cp " + cp + ", tp " + tp);
    }
  }

  /** A mesh without context parallelism. */
  public DeviceMesh(int dp, int pp, int tp) { this(dp, pp, 1, tp); }

  public int worldSize() { return dp * pp * cp * tp; }

  public record Coord(int dp, int pp, int cp, int tp) {
    public Coord(int dp, int pp, int tp) { this(dp, pp, 0, tp); }
  }

  public Coord coord(int rank) {
    checkRank(rank);
    return new Coord((rank / (tp * cp)) % dp, rank / (tp * cp * dp), (rank / tp) % cp, rank % tp);
  }

  public int rank(Coord c) {
    return ((c.pp() * dp + c.dp()) * cp + c.cp()) * tp + c.tp();
  }

  public int size(Dim d) {
    return switch (d) { case DP -> dp; case PP -> pp; case CP -> cp; case TP -> tp; };
  }

  public int index(Dim d, int rank) {
    Coord c = coord(rank);
    return switch (d) { case DP -> c.dp(); case PP -> c.pp(); case CP -> c.cp(); case TP -> c.tp(); };
  }

  /** The global ranks of {@code rank}'s group along {@code d}, in group-rank order. */
  public List<Integer> group(Dim d, int rank) {
    Coord c = coord(rank);
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < size(d); i++) {
      out.add(rank(switch (d) {
        case DP -> new Coord(i, c.pp(), c.cp(), c.tp());
        case PP -> new Coord(c.dp(), i, c.cp(), c.tp());
        case CP -> new Coord(c.dp(), c.pp(), i, c.tp());
        case TP -> new Coord(c.dp(), c.pp(), c.cp(), i);
      }));
    }
    return out;
  }

  /** A name unique to the group, the same on all its members, e.g. {@code dp[1,3]}. */
  public String groupName(Dim d, int rank) {
    return d.name().toLowerCase() + group(d, rank).toString().replace(" ", "");
  }

  private void checkRank(int rank) {
    if (rank < 0 || rank >= worldSize()) throw new IllegalArgumentException("rank " + rank + " outside mesh of " + worldSize());
  }
}
