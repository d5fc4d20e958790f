package dev.weft.data.prepare;

import dev.weft.data.ShardWriter;
import java.util.Arrays;

/**
 * Writes documents to a {@link ShardWriter} under a {@link LengthPolicy}, counting documents truncated or dropped and
 * the target tokens kept and lost. Without a limit tokens go straight through (a text file may be one document of any
 * size); with one, at most about twice {@code maxLength} tokens of a document are held at once.
 */
final class Truncator {
  private final ShardWriter out;
  private final LengthPolicy policy;
  private int[] ids = new int[0];
  private boolean[] flags = new boolean[0];
  private int held;
  private long seen;
  private long lostHere;
  long documents, truncated, dropped, targets, targetsLost;

  Truncator(ShardWriter out, LengthPolicy policy) {
    this.out = out;
    this.policy = policy;
  }

  /** Appends tokens of the current document, all targets. */
  void append(int[] ids) {
    boolean[] all = new boolean[ids.length];
    Arrays.fill(all, true);
    append(ids, all);
  }

  void append(int[] more, boolean[] moreFlags) {
    if (!policy.limits()) {
      out.append(more, moreFlags);
      for (boolean f : moreFlags) if (f) targets++;
      return;
    }
    int max = policy.maxLength();
    for (int i = 0; i < more.length; i++) {
      seen++;
      if (policy.truncation() != LengthPolicy.Truncation.LEFT && held >= max) {
        if (moreFlags[i]) lostHere++;
        continue; // RIGHT and DROP need only the first maxLength + the knowledge that there was more
      }
      if (held == ids.length) grow();
      ids[held] = more[i];
      flags[held++] = moreFlags[i];
      if (held == 2 * max) keepLast(max);
    }
  }

  /** Ends the current document; the separator (if any) follows it, a target when {@code separatorIsTarget}. */
  void endDocument(boolean separatorIsTarget) {
    documents++;
    if (!policy.limits()) {
      out.endDocument(separatorIsTarget);
      return;
    }
    int max = policy.maxLength();
    boolean longer = seen > max;
    if (longer && policy.truncation() == LengthPolicy.Truncation.LEFT) keepLast(max);
    int kept = 0;
    for (int i = 0; i < held; i++) if (flags[i]) kept++;
    if (longer && policy.truncation() == LengthPolicy.Truncation.DROP) {
      dropped++;
      targetsLost += kept + lostHere;
    } else {
      if (longer) truncated++;
      targetsLost += lostHere;
      targets += kept;
      out.append(Arrays.copyOf(ids, held), Arrays.copyOf(flags, held));
      out.endDocument(separatorIsTarget);
    }
    held = 0;
    seen = 0;
    lostHere = 0;
  }

  /** Keeps the last {@code n} held tokens, counting the targets let go. */
  private void keepLast(int n) {
    int cut = held - n;
    if (cut <= 0) return;
    for (int i = 0; i < cut; i++) if (flags[i]) lostHere++;
    System.arraycopy(ids, cut, ids, 0, n);
    System.arraycopy(flags, cut, flags, 0, n);
    held = n;
  }

  private void grow() {
    int n = Math.max(1024, Math.min(2 * policy.maxLength(), ids.length * 2));
    ids = Arrays.copyOf(ids, n);
    flags = Arrays.copyOf(flags, n);
  }
}
