package dev.weft.comm;

import dev.weft.error.WeftException;
import dev.weft.spec.SpecException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;

/**
 * The per-run secret every rendezvous-store client needs: all of a run's keys live under a prefix
 * named by it, so a client without it can neither read nor write them. The launcher (or the user,
 * or a Kubernetes Secret) passes it in {@code WEFT_RUN_TOKEN}; without one the keys are unprefixed
 * (multi-host runs whose nodes were not given a shared token; see docs/security.md).
 */
public final class RunToken {
  public static final String ENV = "WEFT_RUN_TOKEN";
  private static final SecureRandom RANDOM = new SecureRandom();

  private RunToken() {}

  /** 128 random bits, hex. */
  public static String generate() {
    byte[] b = new byte[16];
    RANDOM.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  /** {@code WEFT_RUN_TOKEN}, or "" when unset. */
  public static String fromEnv() { return fromEnv(System.getenv()); }

  public static String fromEnv(Map<String, String> env) {
    String t = env.getOrDefault(ENV, "").strip();
    if (!t.isEmpty() && !t.matches("[A-Za-z0-9_.-]{16,256}")) {
      throw new WeftException(ENV + " must be 16 to 256 letters, digits, '_', '.' or '-' (e.g. from openssl rand -hex 16)");
    }
    return t;
  }

  /**
   * An unprefixed store key the store's host sets to its run's {@link #identity} (no secret), so that a node with
   * another token, or without one where the run has one (or the reverse), is refused in one line.
   */
  public static final String MARK_KEY = "weft/run-token";

  /**
   * What names a run's token where others may read it (the store's mark, a run dir's lock): {@code none}, or the
   * first 64 bits of its SHA-256, which tells tokens apart without giving one away.
   */
  public static String identity(String token) {
    if (token.isEmpty()) return "none";
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
      return "sha256:" + HexFormat.of().formatHex(d, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /**
   * A node whose token has identity {@link #identity} {@code mine} joining {@code where}, whose run's is
   * {@code theirs}: one line naming what to change, exit 2.
   */
  public static SpecException mismatch(String where, String theirs, String mine) {
    if (mine.equals("none")) {
      return new SpecException(ENV, where + " belongs to a run with a run token, and this node has none; set " + ENV
          + " on this node to the token the run's first node was given or printed (docs/security.md)");
    }
    if (theirs.equals("none")) {
      return new SpecException(ENV, where + " belongs to a run without a run token, and this node has one; start every node of"
          + " a run with the same " + ENV + " (or none), or give this run another --rdzv-endpoint (docs/security.md)");
    }
    return new SpecException(ENV, where + " belongs to a run with another run token (" + theirs + ", this node's is " + mine
        + "); start this node with the run's " + ENV + ", or give this run another --rdzv-endpoint or --run-dir (docs/security.md)");
  }

  /** The checkpoint manifest's state key for the {@link #identity} of the token of the run that saved it. */
  public static final String STATE_KEY = "run_token";

  /**
   * Refuses a checkpoint saved under another token's identity ({@code saved}; null: saved before identities were
   * recorded, accepted) where a run with identity {@code mine} would resume from it: one line, exit 2.
   */
  public static void requireSameRun(String checkpoint, Object saved, String mine) {
    if (saved == null || saved.toString().equals(mine)) return;
    throw new SpecException(ENV, checkpoint + " was saved by a run with another run token (" + saved + ", this run's is " + mine
        + "): another run wrote into this run's checkpoint.dir; give each run its own checkpoint.dir, or resume with the"
        + " token that saved it (docs/security.md)");
  }

  /** The store key prefix for {@code token}: "" without a token. */
  public static String keyPrefix(String token) { return token.isEmpty() ? "" : "run/" + token + "/"; }
}
