package dev.weft.spec;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Spots values that must not be written down: a spec is copied into {@code RUN_DIR/spec.yaml}, every
 * checkpoint and a ConfigMap, so a credential in it is readable by anyone who can read those. Pure.
 */
public final class Credentials {
  /**
   * A '_'-separated word of a name that says "secret" (HF_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASS, DB_PASSWORD,
   * WANDB_API_KEY, GHTOKEN), matched by word so that TOKENIZERS_PARALLELISM and MONKEY are not one.
   */
  private static final Pattern NAME_WORD =
      Pattern.compile("[A-Z0-9]*(TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|APIKEY)|KEYS?|SECRETS|TOKENS");
  /** Values shaped like a credential, found anywhere in a value (a URL, a header, a connection string). */
  private static final Map<String, Pattern> SHAPES = Map.of(
      "a URL with a user and password", Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://[^/\\s@:]*:[^/\\s@]+@"),
      "user:password@host", Pattern.compile("^[^/\\s@:]+:[^/\\s@]+@(?![a-z0-9]+:[0-9a-fA-F]{32,})"),
      // "Basic" is an ordinary word too: only with a base64 credential that has a digit or + / =
      "an Authorization header", Pattern.compile("(?i:\\bbearer)\\s+[A-Za-z0-9._~+/=-]{8,}"
          + "|\\bBasic\\s+(?=[A-Za-z]*[0-9+/=])[A-Za-z0-9+/]{8,}={0,2}"),
      "a Hugging Face token", Pattern.compile("\\bhf_[A-Za-z0-9]{20,}"),
      "an AWS access key id", Pattern.compile("(?<![A-Z0-9])(AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])"),
      "a GitHub token", Pattern.compile("\\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
      "a GitLab token", Pattern.compile("\\bglpat-[A-Za-z0-9_-]{20,}"),
      "a Slack token", Pattern.compile("\\bxox[abposr]-[A-Za-z0-9-]{10,}"),
      "an API key", Pattern.compile("\\bsk-[A-Za-z0-9_-]{20,}"),
      "a JSON web token", Pattern.compile("\\beyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}"));
  private static final Pattern PRIVATE_KEY = Pattern.compile("-----BEGIN [A-Z ]*PRIVATE KEY-----");
  /** Long, unbroken, base64-ish; not a path (which starts with '/' or names a file with a '.'). */
  private static final Pattern OPAQUE = Pattern.compile("[A-Za-z0-9+=_-][A-Za-z0-9+/=_-]{31,}");
  /** Bits per character above which a long opaque string is taken for a random secret (hex tops out at 4). */
  static final double ENTROPY_BITS = 4.2;

  private Credentials() {}

  /** Why {@code name=value} looks like a credential, or empty. The reason never contains the value. */
  public static Optional<String> why(String name, String value) {
    for (String word : name.toUpperCase(Locale.ROOT).split("_")) {
      if (NAME_WORD.matcher(word).matches()) return Optional.of("its name says it is a credential");
    }
    if (value == null) return Optional.empty();
    Optional<String> shape = inValue(value);
    if (shape.isPresent()) return shape;
    if (OPAQUE.matcher(value).matches() && value.chars().anyMatch(Character::isDigit)
        && value.chars().anyMatch(Character::isLetter) && entropy(value) > ENTROPY_BITS) {
      return Optional.of("its value is a long random-looking string");
    }
    return Optional.empty();
  }

  /** Why a value of any field looks like (or holds) a credential by its shape alone, or empty; never the value. */
  public static Optional<String> inValue(String value) {
    if (value == null || value.isEmpty()) return Optional.empty();
    for (Map.Entry<String, Pattern> s : new TreeMap<>(SHAPES).entrySet()) {
      if (s.getValue().matcher(value).find()) return Optional.of("its value looks like " + s.getKey());
    }
    if (PRIVATE_KEY.matcher(value).find()) return Optional.of("its value looks like a private key");
    return Optional.empty();
  }

  /** Shannon entropy of the characters of {@code s}, in bits per character. */
  static double entropy(String s) {
    Map<Integer, Integer> counts = new TreeMap<>();
    s.chars().forEach(c -> counts.merge(c, 1, Integer::sum));
    double h = 0;
    for (int n : counts.values()) {
      double p = (double) n / s.length();
      h -= p * Math.log(p) / Math.log(2);
    }
    return h;
  }
}
