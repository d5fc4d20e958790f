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
   * A '_'-separated word of a name that says "secret" (HF_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD,
   * WANDB_API_KEY, GHTOKEN), matched by word so that TOKENIZERS_PARALLELISM is not one.
   */
  private static final Pattern NAME_WORD = Pattern.compile("[A-Z0-9]*(TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|APIKEY)|KEY");
  /** Values shaped like a known provider's token. */
  private static final Map<String, Pattern> SHAPES = Map.of(
      "a Hugging Face token", Pattern.compile("hf_[A-Za-z0-9]{20,}"),
      "an AWS access key id", Pattern.compile("(AKIA|ASIA)[A-Z0-9]{16}"),
      "a GitHub token", Pattern.compile("(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
      "a GitLab token", Pattern.compile("glpat-[A-Za-z0-9_-]{20,}"),
      "a Slack token", Pattern.compile("xox[abposr]-[A-Za-z0-9-]{10,}"),
      "an API key", Pattern.compile("sk-[A-Za-z0-9_-]{20,}"),
      "a JSON web token", Pattern.compile("eyJ[A-Za-z0-9_-]{10,}\\.eyJ[A-Za-z0-9_-]{10,}\\..*"),
      "a private key", Pattern.compile("(?s).*-----BEGIN [A-Z ]*PRIVATE KEY-----.*"));
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
    for (Map.Entry<String, Pattern> s : new TreeMap<>(SHAPES).entrySet()) {
      if (s.getValue().matcher(value).matches()) return Optional.of("its value looks like " + s.getKey());
    }
    if (OPAQUE.matcher(value).matches() && value.chars().anyMatch(Character::isDigit)
        && value.chars().anyMatch(Character::isLetter) && entropy(value) > ENTROPY_BITS) {
      return Optional.of("its value is a long random-looking string");
    }
    return Optional.empty();
  }

  /** Throws for the first entry of {@code env} (at {@code field}) that looks like a credential. */
  public static void refuseIn(Map<String, String> env, String field, String secretField) {
    for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
      Optional<String> why = why(e.getKey(), e.getValue());
      if (why.isPresent()) {
        throw new SpecException(field + "." + e.getKey(), why.get() + ", and a value here is written into spec.yaml,"
            + " every checkpoint and the ConfigMap; put it in a Secret and set " + secretField + "." + e.getKey()
            + "=SECRET-NAME/KEY instead");
      }
    }
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
