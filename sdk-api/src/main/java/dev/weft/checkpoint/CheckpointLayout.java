package dev.weft.checkpoint;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/**
 * Names inside a checkpoint root: {@code step-000100/} (committed), {@code .tmp-step-000100/} (being
 * written), {@code rank-00003.safetensors} (one shard per writing rank), {@code manifest.json}, and
 * the {@code latest} pointer file.
 */
public final class CheckpointLayout {
  public static final String LATEST = "latest";
  /** The manifest state key of the run token's identity (the same as {@code dev.weft.comm.RunToken.STATE_KEY}). */
  public static final String STATE_RUN_TOKEN = "run_token";
  /** A {@code latest} pointer larger than this is refused. */
  public static final long MAX_LATEST_BYTES = 4096;
  private static final Pattern STEP_DIR = Pattern.compile("step-(\\d{1,18})");
  private static final Pattern TMP_DIR = Pattern.compile("\\.tmp-step-(\\d{1,18})");
  private static final Pattern SHARD = Pattern.compile("rank-\\d{5,9}\\.safetensors");

  private CheckpointLayout() {}

  /** {@code checkpoint.dir}, or RUN_DIR/checkpoints when it is empty. */
  public static Path rootFor(dev.weft.spec.CheckpointSpec spec, Path runDir) {
    return spec == null || spec.dir() == null || spec.dir().isBlank() ? runDir.resolve("checkpoints") : Path.of(spec.dir());
  }

  public static String stepDirName(long step) { return String.format("step-%06d", step); }
  public static String tmpDirName(long step) { return ".tmp-" + stepDirName(step); }
  public static String shardFileName(int rank) { return String.format("rank-%05d.safetensors", rank); }

  /** A shard file name as written by {@link #shardFileName}; anything else in a manifest is refused. */
  static boolean isShardFileName(String name) { return name != null && SHARD.matcher(name).matches(); }

  public static OptionalLong stepOf(String dirName) {
    Matcher m = STEP_DIR.matcher(dirName);
    return m.matches() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
  }

  /** The {@code latest} pointer's second line names the run that wrote it: {@code run_token sha256:…} (or {@code none}). */
  static final String LATEST_OWNER = "run_token ";

  /**
   * A {@code latest} pointer's text: the step directory, and the identity of the run token of the run that committed it
   * (no secret: {@code dev.weft.comm.RunToken.identity}) when its manifest records one.
   */
  public static String latestText(long step, Object runToken) {
    return stepDirName(step) + "\n" + (runToken == null ? "" : LATEST_OWNER + runToken + "\n");
  }

  /** The run token identity a {@code latest} pointer's text names; empty when it names none (written before they were). */
  public static java.util.Optional<String> latestOwner(String text) {
    return text.lines().skip(1).map(String::strip).filter(l -> l.startsWith(LATEST_OWNER))
        .map(l -> l.substring(LATEST_OWNER.length()).strip()).findFirst();
  }

  /** The step a {@code latest} pointer's text names (its first line); empty (logged) when it names no step directory. */
  public static OptionalLong parseLatest(String where, String text) {
    String name = text.strip().lines().findFirst().orElse("").strip();
    OptionalLong s = stepOf(name);
    if (s.isEmpty()) LoggerFactory.getLogger(CheckpointLayout.class).warn("{} names '{}', not a step directory; using the newest complete checkpoint", where, name);
    return s;
  }

  static OptionalLong tmpStepOf(String dirName) {
    Matcher m = TMP_DIR.matcher(dirName);
    return m.matches() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
  }

  /** Committed checkpoint directories under {@code root}, newest step first. */
  public static List<Path> committed(Path root) {
    if (!Files.isDirectory(root)) return List.of();
    try (Stream<Path> s = Files.list(root)) {
      List<Path> out = new ArrayList<>(s.filter(Files::isDirectory)
          .filter(p -> stepOf(p.getFileName().toString()).isPresent()).toList());
      out.sort(Comparator.comparingLong((Path p) -> stepOf(p.getFileName().toString()).getAsLong()).reversed());
      return out;
    } catch (IOException e) {
      throw new CheckpointException("cannot list checkpoint directory " + root + ": " + e.getMessage(), e);
    }
  }
}
