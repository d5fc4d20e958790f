package dev.weft.k8s.spec;

import dev.weft.spec.SpecException;

/** {@code deployment.nodes}: a fixed count ("2") or an elastic range ("1:4"). */
public record NodeRange(int min, int max) {
  public NodeRange {
    if (min < 1) throw new SpecException("deployment.nodes", "needs at least 1 node, got " + min);
    if (max < min) throw new SpecException("deployment.nodes", "'" + min + ":" + max + "' has MAX below MIN; write MIN:MAX, e.g. 1:4");
  }

  public static NodeRange parse(String text) {
    String t = text == null ? "" : text.trim();
    try {
      int colon = t.indexOf(':');
      if (colon < 0) {
        int n = Integer.parseInt(t);
        return new NodeRange(n, n);
      }
      return new NodeRange(Integer.parseInt(t.substring(0, colon).trim()), Integer.parseInt(t.substring(colon + 1).trim()));
    } catch (NumberFormatException e) {
      throw new SpecException("deployment.nodes", "'" + text + "' is not a node count; write N (e.g. 2) or MIN:MAX (e.g. 1:4)");
    }
  }

  public boolean elastic() { return max > min; }

  @Override public String toString() { return elastic() ? min + ":" + max : Integer.toString(min); }
}
