package dev.weft.data;

import dev.weft.WeftException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Any UTF-8 text file as byte tokens; sample i is a window at a pseudo-random, seed-determined offset. */
public final class TextFileCorpus implements TokenSource {
  private final Path file;
  private final byte[] bytes;
  private final long seed;

  private TextFileCorpus(Path file, byte[] bytes, long seed) {
    this.file = file;
    this.bytes = bytes;
    this.seed = seed;
  }

  public static TextFileCorpus open(Path file, long seed) {
    try {
      byte[] b = Files.readAllBytes(file);
      if (b.length < 2) throw new WeftException("data.source: " + file + " holds " + b.length + " bytes; it needs at least seqLen + 1");
      return new TextFileCorpus(file, b, seed);
    } catch (IOException e) {
      throw new WeftException("data.source: cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void sample(long index, byte[] out) {
    if (bytes.length < out.length) {
      throw new WeftException("data.source: " + file + " has " + bytes.length + " bytes, fewer than data.seqLen + 1 = "
          + out.length + "; lower data.seqLen or use a longer file");
    }
    long span = bytes.length - out.length + 1;
    long h = (seed ^ index * 0xBF58476D1CE4E5B9L) * 0x94D049BB133111EBL;
    int start = (int) Math.floorMod(h ^ (h >>> 29), span);
    System.arraycopy(bytes, start, out, 0, out.length);
  }

  @Override
  public String describe() { return "text file " + file + " (" + bytes.length + " bytes, byte tokens)"; }
}
