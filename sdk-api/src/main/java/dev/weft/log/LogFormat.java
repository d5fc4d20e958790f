package dev.weft.log;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;

/**
 * How this process writes lines to stdout and stderr: {@code TEXT} for people, {@code JSON} for a
 * cluster's log shipper (one {@link JsonLine} per line). {@code WEFT_LOG_FORMAT} decides before the spec is
 * read and wins over it afterwards; the spec's {@code logging.format} decides otherwise. Switching to JSON
 * replaces {@code System.out} and {@code System.err} by {@link JsonLinesStream}s, so every line printed
 * anywhere in the JVM comes out as an object.
 */
public enum LogFormat {
  TEXT, JSON;

  public static final String ENV = "WEFT_LOG_FORMAT";
  private static volatile LogFormat current = TEXT;
  private static volatile boolean fromEnv;

  static {
    String env = System.getenv(ENV);
    if (env != null && !env.isBlank()) {
      fromEnv = true;
      install(parse(env));
    }
  }

  public static LogFormat current() { return current; }

  public static boolean json() { return current == JSON; }

  /** {@code text} or {@code json} (any case); anything else is text, since the spec's validator names the field. */
  public static LogFormat parse(String s) {
    return "json".equals(s == null ? "" : s.trim().toLowerCase(Locale.ROOT)) ? JSON : TEXT;
  }

  /** The spec's {@code logging.format}, unless the environment already chose. */
  public static void useSpec(String specFormat) {
    if (!fromEnv) install(parse(specFormat));
  }

  /** What a child process (a worker) needs in its environment to write the same format from its first line. */
  public static Map<String, String> childEnv() { return Map.of(ENV, current.name().toLowerCase(Locale.ROOT)); }

  private static synchronized void install(LogFormat f) {
    if (f == current) return;
    current = f;
    if (f == JSON) {
      PrintStream out = System.out;
      PrintStream err = System.err;
      System.setOut(new JsonLinesStream(out, "INFO"));
      System.setErr(new JsonLinesStream(err, "ERROR"));
    } else {
      if (System.out instanceof JsonLinesStream j) System.setOut(j.target());
      if (System.err instanceof JsonLinesStream j) System.setErr(j.target());
    }
  }
}
