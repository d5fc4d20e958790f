package dev.weft.checkpoint;

/**
 * Copy {@code length} elements from element {@code src} of a saved piece's data to element
 * {@code dst} of a wanted piece's data (both counted from the start of the piece's flat range).
 */
public record CopyRun(long src, long dst, long length) {
  public CopyRun {
    if (src < 0 || dst < 0 || length <= 0) throw new IllegalArgumentException("bad copy run " + src + " → " + dst + " × " + length);
  }
}
