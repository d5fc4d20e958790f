package dev.weft.parallel.pipeline;

import dev.weft.error.WeftException;

/** A schedule that cannot be built or cannot run: bad parameters, deadlock, or broken ordering. */
public class ScheduleException extends WeftException {
  public ScheduleException(String message) { super(message); }
}
