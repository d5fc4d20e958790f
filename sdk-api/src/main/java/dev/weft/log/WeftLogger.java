package dev.weft.log;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * Weft's SLF4J logger: writes to the current {@code System.out}, as {@code LEVEL Logger - message} in
 * text, or as one {@link JsonLine} in JSON ({@link LogFormat}).
 */
final class WeftLogger extends LegacyAbstractLogger {
  private final String shortName;
  private final int threshold;

  WeftLogger(String name, Level threshold) {
    this.name = name;
    this.shortName = name.substring(name.lastIndexOf('.') + 1);
    this.threshold = threshold.toInt();
  }

  @Override public boolean isTraceEnabled() { return enabled(Level.TRACE); }
  @Override public boolean isDebugEnabled() { return enabled(Level.DEBUG); }
  @Override public boolean isInfoEnabled() { return enabled(Level.INFO); }
  @Override public boolean isWarnEnabled() { return enabled(Level.WARN); }
  @Override public boolean isErrorEnabled() { return enabled(Level.ERROR); }

  private boolean enabled(Level l) { return l.toInt() >= threshold; }

  @Override protected String getFullyQualifiedCallerName() { return null; }

  @Override
  protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] args, Throwable t) {
    String message = MessageFormatter.basicArrayFormat(pattern, args);
    if (t != null) message = message + System.lineSeparator() + stackTrace(t);
    String line = LogFormat.json() ? JsonLine.now(level.name(), name, message) : level.name() + " " + shortName + " - " + message;
    var out = System.out;
    synchronized (out) {
      out.println(line);
      out.flush();
    }
  }

  private static String stackTrace(Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w));
    return w.toString().stripTrailing();
  }
}
