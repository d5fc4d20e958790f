package dev.weft.checkpoint;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The optional secret that seals manifests with HMAC-SHA256 ({@link ManifestSeal}). It comes only from
 * the environment ({@value #ENV}, which a Kubernetes pod fills from a Secret), is never written to a
 * file, and never appears in a message or {@link #toString()}.
 */
public final class CheckpointKey {
  public static final String ENV = "WEFT_CHECKPOINT_KEY";
  /** Shorter keys are refused: an HMAC is only as strong as its key. */
  public static final int MIN_LENGTH = 16;
  public static final CheckpointKey NONE = new CheckpointKey(null);

  private final byte[] key;

  private CheckpointKey(byte[] key) { this.key = key; }

  /** A key of the given text (UTF-8); refused when shorter than {@value #MIN_LENGTH} characters. */
  public static CheckpointKey of(String secret) {
    if (secret == null || secret.length() < MIN_LENGTH) {
      throw new CheckpointException(ENV + " holds " + (secret == null ? 0 : secret.length()) + " characters; a checkpoint key needs at least "
          + MIN_LENGTH + " (e.g. openssl rand -hex 32)");
    }
    return new CheckpointKey(secret.getBytes(StandardCharsets.UTF_8));
  }

  /** The key in {@code env}'s {@value #ENV}; {@link #NONE} when it is unset or empty. */
  public static CheckpointKey from(Map<String, String> env) {
    String v = env.get(ENV);
    return v == null || v.isEmpty() ? NONE : of(v);
  }

  /** The key of this process's environment. */
  public static CheckpointKey fromEnvironment() { return from(System.getenv()); }

  public boolean present() { return key != null; }

  /** HMAC-SHA256 of {@code body}, lowercase hex. */
  String hmacHex(byte[] body) {
    if (key == null) throw new IllegalStateException("no checkpoint key");
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return Sha256.hex(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM has no HmacSHA256", e);
    }
  }

  /** Whether {@code hex} is the HMAC of {@code body}, compared in constant time. */
  boolean matches(byte[] body, String hex) {
    return MessageDigest.isEqual(hmacHex(body).getBytes(StandardCharsets.US_ASCII), hex.getBytes(StandardCharsets.US_ASCII));
  }

  @Override public String toString() { return present() ? "CheckpointKey[set]" : "CheckpointKey[none]"; }
}
