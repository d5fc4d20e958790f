package dev.weft.log;

/** What a log line says about where it comes from: this process's rank and the step it is on, when known. */
public final class LogContext {
  private static volatile Integer rank;
  private static volatile Long step;

  private LogContext() {}

  public static void rank(int r) { rank = r; }

  public static void step(long s) { step = s; }

  public static Integer rank() { return rank; }

  public static Long step() { return step; }
}
