package dev.weft.spec;

import java.util.Set;

/**
 * How Weft writes its log lines to stdout: {@code text} (for people) or {@code json} (one object per
 * line, for a cluster's log shipper). {@code WEFT_LOG_FORMAT} in the environment wins, so a pod's
 * first lines, written before the spec is read, have the right format too.
 */
public record LoggingSpec(String format) {
  public static final Set<String> FORMATS = Set.of("text", "json");

  public LoggingSpec {
    if (format == null || format.isBlank()) format = "text";
  }
}
