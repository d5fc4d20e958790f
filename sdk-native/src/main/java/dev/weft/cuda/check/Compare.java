package dev.weft.cuda.check;

import java.nio.ByteBuffer;

/** Element-wise comparisons of host buffers, returning the worst difference found. */
final class Compare {
  private Compare() {}

  /** Largest |a-b| / max(|b|, floor) over fp32 elements; infinite when one side is NaN and the other not. */
  static double maxRelativeFloatDiff(ByteBuffer a, ByteBuffer b, double floor) {
    double worst = 0;
    for (int i = 0; i < a.capacity() / 4; i++) {
      float x = a.getFloat(4 * i), y = b.getFloat(4 * i);
      if (Float.isNaN(x) || Float.isNaN(y)) {
        if (Float.isNaN(x) != Float.isNaN(y)) return Double.POSITIVE_INFINITY;
        continue;
      }
      if (x == y) continue;
      worst = Math.max(worst, Math.abs((double) x - y) / Math.max(Math.abs((double) y), floor));
    }
    return worst;
  }

  /** Count of 16-bit elements whose bit patterns differ by more than {@code ulps} (any two NaNs count as equal). */
  static long halfMismatches(ByteBuffer a, ByteBuffer b, int ulps, boolean bfloat) {
    long bad = 0;
    for (int i = 0; i < a.capacity() / 2; i++) {
      int x = a.getShort(2 * i) & 0xffff, y = b.getShort(2 * i) & 0xffff;
      if (isNaN16(x, bfloat) && isNaN16(y, bfloat)) continue;
      if (Math.abs(x - y) > ulps) bad++;
    }
    return bad;
  }

  /** Count of fp32 elements whose bits differ (any two NaNs count as equal). */
  static long floatMismatches(ByteBuffer a, ByteBuffer b) {
    long bad = 0;
    for (int i = 0; i < a.capacity() / 4; i++) {
      float x = a.getFloat(4 * i), y = b.getFloat(4 * i);
      if (Float.isNaN(x) && Float.isNaN(y)) continue;
      if (Float.floatToRawIntBits(x) != Float.floatToRawIntBits(y)) bad++;
    }
    return bad;
  }

  static boolean isNaN16(int bits, boolean bfloat) {
    return bfloat ? (bits & 0x7f80) == 0x7f80 && (bits & 0x7f) != 0 : (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0;
  }
}
