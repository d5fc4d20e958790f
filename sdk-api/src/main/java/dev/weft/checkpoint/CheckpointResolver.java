package dev.weft.checkpoint;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the checkpoint to resume from. {@code latest} names the newest committed checkpoint; if it
 * (or the checkpoint it names) is damaged in any way — the directory is gone, the manifest fails its
 * own checksum or its fields, a shard fails its size, SHA-256 or header, or the caller's check of the
 * state refuses it — a warning names the file and the next older complete checkpoint is used. Checkpoints newer than {@code latest} are ignored: they were renamed into place
 * but {@code latest}, written last, never pointed at them. Every candidate is fully verified, so all
 * ranks reach the same answer from the same files.
 */
public final class CheckpointResolver {
  private static final Logger log = LoggerFactory.getLogger(CheckpointResolver.class);

  private CheckpointResolver() {}

  /** {@code --resume latest|PATH}: the newest good checkpoint under {@code root}, or the checkpoint directory PATH. */
  public static Checkpoint resolve(Path root, String resume) {
    return resolve(root, resume, c -> {});
  }

  /**
   * As {@link #resolve(Path, String)}, with {@code check} run on each candidate after it verifies:
   * it throws a {@link CheckpointException} for a checkpoint whose state the caller cannot use.
   */
  public static Checkpoint resolve(Path root, String resume, Consumer<Checkpoint> check) {
    if ("latest".equals(resume)) {
      return latest(root, check).orElseThrow(() -> new CheckpointException("--resume latest: no complete checkpoint under " + root
          + "; train without --resume or point checkpoint.dir at the run's checkpoints"));
    }
    Checkpoint c = Checkpoint.open(Path.of(resume));
    c.verify();
    check.accept(c);
    return c;
  }

  /** The newest complete checkpoint under {@code root}, falling back past damaged ones; empty when there is none. */
  public static Optional<Checkpoint> latest(Path root) {
    return latest(root, c -> {});
  }

  private static Optional<Checkpoint> latest(Path root, Consumer<Checkpoint> check) {
    for (Path dir : candidates(root)) {
      try {
        Checkpoint c = Checkpoint.open(dir);
        c.verify();
        check.accept(c);
        return Optional.of(c);
      } catch (CheckpointException e) {
        log.warn("checkpoint {} is damaged ({}); falling back to the previous one", dir, e.getMessage());
      }
    }
    return Optional.empty();
  }

  /** The checkpoint {@code latest} names, then older committed ones, newest first. */
  static List<Path> candidates(Path root) {
    List<Path> committed = CheckpointLayout.committed(root);
    OptionalLong pointed = pointedStep(root);
    List<Path> out = new ArrayList<>();
    if (pointed.isPresent()) out.add(root.resolve(CheckpointLayout.stepDirName(pointed.getAsLong())));
    for (Path p : committed) {
      long s = CheckpointLayout.stepOf(p.getFileName().toString()).getAsLong();
      if (pointed.isEmpty() || s < pointed.getAsLong()) out.add(p);
    }
    return out;
  }

  private static OptionalLong pointedStep(Path root) {
    Path latest = root.resolve(CheckpointLayout.LATEST);
    if (!Files.isRegularFile(latest)) return OptionalLong.empty();
    try {
      if (Files.size(latest) > 4096) throw new IOException("over 4096 bytes");
      String name = Files.readString(latest, StandardCharsets.UTF_8).strip();
      OptionalLong s = CheckpointLayout.stepOf(name);
      if (s.isEmpty()) log.warn("{} names '{}', not a step directory; using the newest complete checkpoint", latest, name);
      return s;
    } catch (IOException e) {
      log.warn("{} cannot be read ({}); using the newest complete checkpoint", latest, e.getMessage());
      return OptionalLong.empty();
    }
  }
}
