package dev.weft.cuda.check;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/** Fills host buffers with test data: gaussian values, and floats that cover every rounding case of the casts. */
final class RandomData {
  private static final float[] SPECIAL = {0f, -0f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
      Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE, 65504f, 65519.99f, 65520f, 6.1035156e-5f, 5.9604645e-8f,
      2.9802322e-8f, 1.0000001f, 1.00390625f, 1.005859375f};

  private final SplittableRandom random;

  RandomData(long seed) { random = new SplittableRandom(seed); }

  void gaussian(ByteBuffer b, double scale) {
    for (int i = 0; i < b.capacity() / 4; i++) b.putFloat(4 * i, (float) (gauss() * scale));
  }

  void positive(ByteBuffer b, double scale) {
    for (int i = 0; i < b.capacity() / 4; i++) b.putFloat(4 * i, (float) Math.abs(gauss() * scale));
  }

  /** A mix of random bit patterns, values across the exponent range (incl. fp16 subnormals) and special values. */
  void castInputs(ByteBuffer b) {
    for (int i = 0; i < b.capacity() / 4; i++) {
      float f = switch (random.nextInt(4)) {
        case 0 -> Float.intBitsToFloat(random.nextInt());
        case 1 -> (float) (gauss() * Math.scalb(1.0, random.nextInt(-30, 20)));
        case 2 -> SPECIAL[random.nextInt(SPECIAL.length)];
        default -> (float) gauss();
      };
      b.putFloat(4 * i, f);
    }
  }

  void bytes(ByteBuffer b) {
    for (int i = 0; i < b.capacity(); i++) b.put(i, (byte) random.nextInt());
  }

  int nextInt(int bound) { return random.nextInt(bound); }

  private double gauss() {
    double u = random.nextDouble(), v = random.nextDouble();
    return Math.sqrt(-2 * Math.log(1 - u)) * Math.cos(2 * Math.PI * v);
  }
}
