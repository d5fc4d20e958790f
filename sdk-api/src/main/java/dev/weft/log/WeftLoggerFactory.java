package dev.weft.log;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * One {@link WeftLogger} per name. The threshold is {@code WEFT_LOG_LEVEL} (or {@code -Dweft.log.level};
 * default info), except for libraries that are noisy at info.
 */
final class WeftLoggerFactory implements ILoggerFactory {
  private static final Map<String, Level> QUIET = Map.of("ai.djl", Level.ERROR);
  private final Map<String, Logger> loggers = new ConcurrentHashMap<>();
  private final Level threshold = level(System.getProperty("weft.log.level", System.getenv("WEFT_LOG_LEVEL")));

  @Override
  public Logger getLogger(String name) {
    return loggers.computeIfAbsent(name, n -> new WeftLogger(n, thresholdFor(n)));
  }

  private Level thresholdFor(String name) {
    for (Map.Entry<String, Level> q : QUIET.entrySet()) {
      if (name.startsWith(q.getKey()) && q.getValue().toInt() > threshold.toInt()) return q.getValue();
    }
    return threshold;
  }

  static Level level(String s) {
    if (s == null || s.isBlank()) return Level.INFO;
    try {
      return Level.valueOf(s.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return Level.INFO;
    }
  }
}
