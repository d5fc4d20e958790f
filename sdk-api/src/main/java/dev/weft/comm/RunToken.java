package dev.weft.comm;

import dev.weft.error.WeftException;
import dev.weft.spec.SpecException;
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

  /** An unprefixed store key a host with a token sets (to "1": no secret), so a node without the token is told so. */
  public static final String REQUIRED_KEY = "weft/run-token-required";

  /** A node without the token joining {@code where}, which holds a run with one: one line, exit 2. */
  public static SpecException missing(String where) {
    return new SpecException(ENV, where + " belongs to a run with a run token, and this node has none; set " + ENV
        + " on this node to the token the run's first node printed (docs/security.md)");
  }

  /** The store key prefix for {@code token}: "" without a token. */
  public static String keyPrefix(String token) { return token.isEmpty() ? "" : "run/" + token + "/"; }
}
