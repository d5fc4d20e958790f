package dev.weft.checkpoint;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 of files, as lowercase hex (what {@code sha256sum} prints). */
public final class Sha256 {
  private Sha256() {}

  public static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
  }

  public static String hex(byte[] digest) { return HexFormat.of().formatHex(digest); }

  static String ofFile(Path file) throws IOException {
    MessageDigest md = digest();
    update(md, file);
    return hex(md.digest());
  }

  /** Feeds the bytes of {@code file} into {@code md}. */
  public static void update(MessageDigest md, Path file) throws IOException {
    byte[] buf = new byte[1 << 20];
    try (InputStream in = Files.newInputStream(file)) {
      int n;
      while ((n = in.read(buf)) > 0) md.update(buf, 0, n);
    }
  }
}
