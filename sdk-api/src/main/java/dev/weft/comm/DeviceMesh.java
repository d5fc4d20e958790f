package dev.weft.comm;

import java.util.ArrayList;
import java.util.List;

/**
 * Rank ↔ (dp, pp, tp) coordinates. tp varies fastest, then dp, then pp (Megatron's order), so a
 * tensor-parallel group is made of neighbouring ranks and stays on one host when it can.
 * Pure arithmetic: no communication happens here.
 */
public record DeviceMesh(int dp, int pp, int tp) {
  public enum Dim { DP, PP, TP }

  public DeviceMesh {
    if (dp < 1 || pp < 1 || tp < 1) throw new IllegalArgumentException("mesh sizes must be ≥ 1: " + dp + "×" + pp + "×" + tp);
  }

  public int worldSize() { return dp * pp * tp; }

  public record Coord(int dp, int pp, int tp) {}

  public Coord coord(int rank) {
    checkRank(rank);
    return new Coord((rank / tp) % dp, rank / (tp * dp), rank % tp);
  }

  public int rank(Coord c) {
    return c.pp() * (dp * tp) + c.dp() * tp + c.tp();
  }

  public int size(Dim d) {
    return switch (d) { case DP -> dp; case PP -> pp; case TP -> tp; };
  }

  public int index(Dim d, int rank) {
    Coord c = coord(rank);
    return switch (d) { case DP -> c.dp(); case PP -> c.pp(); case TP -> c.tp(); };
  }

  /** The global ranks of {@code rank}'s group along {@code d}, in group-rank order. */
  public List<Integer> group(Dim d, int rank) {
    Coord c = coord(rank);
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < size(d); i++) {
      out.add(rank(switch (d) {
        case DP -> new Coord(i, c.pp(), c.tp());
        case PP -> new Coord(c.dp(), i, c.tp());
        case TP -> new Coord(c.dp(), c.pp(), i);
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
