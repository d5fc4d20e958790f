package dev.weft.error;

/**
 * The exit codes of Weft's processes (the {@code weft} command, a worker, an elastic agent), one place for the
 * command, the workers and the controllers that read them (sdk-k8s's retry policy, sdk-s3's fetch).
 */
public final class ExitCodes {
  /** The run or the machine failed. */
  public static final int FAILURE = 1;
  /** What the user gave cannot run: a spec, a flag, a file ({@link BadInputException}); retrying will not help. */
  public static final int BAD_INPUT = 2;
  /** Training diverged (a non-finite loss or gradient); {@code dev.weft.train.TrainingDivergedException.EXIT_CODE}. */
  public static final int DIVERGED = 3;

  private ExitCodes() {}
}
