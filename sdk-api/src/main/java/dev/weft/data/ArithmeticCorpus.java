package dev.weft.data;

import java.util.SplittableRandom;

/**
 * Synthetic text that a small model can visibly learn: lines such as {@code 37+45=82;} whose sums
 * are right. The digits of the question are random (≈ loss floor), the format and the answer are
 * learnable, so the loss falls well below the byte-level starting point of ln(256).
 */
public final class ArithmeticCorpus implements TokenSource {
  private final long seed;

  public ArithmeticCorpus(long seed) { this.seed = seed; }

  @Override
  public void sample(long index, int[] out) {
    SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
    int n = 0;
    while (n < out.length) {
      int a = r.nextInt(100), b = r.nextInt(100);
      String line = a + "+" + b + "=" + (a + b) + ";";
      for (int i = 0; i < line.length() && n < out.length; i++) out[n++] = line.charAt(i);
    }
  }

  @Override
  public long vocabSize() { return 256; }

  @Override
  public String describe() { return "synthetic arithmetic (a+b=c; lines, byte tokens)"; }
}
