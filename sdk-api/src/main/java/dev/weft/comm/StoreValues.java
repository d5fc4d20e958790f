package dev.weft.comm;

/**
 * Numbers read back from the rendezvous store, parsed defensively: the store is shared by every
 * client that holds the run token, so a value that is not what Weft wrote is an error naming the key
 * (never a NumberFormatException or an index out of range).
 */
public final class StoreValues {
  private StoreValues() {}

  public static long parseLong(String key, String value) {
    if (value == null || value.length() > 20) throw bad(key, value, "a whole number");
    try {
      return Long.parseLong(value.strip());
    } catch (NumberFormatException e) {
      throw bad(key, value, "a whole number");
    }
  }

  public static int parseInt(String key, String value) {
    long v = parseLong(key, value);
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) throw bad(key, value, "a 32-bit whole number");
    return (int) v;
  }

  /** {@code STEP@MILLIS} as written for a worker's first step. */
  public static long[] parsePair(String key, String value) {
    int at = value == null ? -1 : value.indexOf('@');
    if (at < 0) throw bad(key, value, "STEP@MILLIS");
    return new long[] {parseLong(key, value.substring(0, at)), parseLong(key, value.substring(at + 1))};
  }

  private static CommException bad(String key, String value, String wanted) {
    String shown = value == null ? "nothing" : "'" + (value.length() > 40 ? value.substring(0, 40) + "..." : value) + "'";
    return new CommException("the rendezvous store holds " + shown + " under '" + key + "', not " + wanted
        + "; another process may be writing this run's keys (see docs/security.md)");
  }
}
