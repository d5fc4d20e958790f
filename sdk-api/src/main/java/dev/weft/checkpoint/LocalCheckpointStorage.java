package dev.weft.checkpoint;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints in a local or shared POSIX directory: shards are written in place under
 * {@code .tmp-step-N/}, and the commit is the rename to {@code step-N/} followed by the atomic
 * replacement of {@code latest} ({@link CommitProtocol}).
 */
public final class LocalCheckpointStorage implements CheckpointStorage {
  private static final Logger log = LoggerFactory.getLogger(LocalCheckpointStorage.class);

  private final Path root;

  public LocalCheckpointStorage(Path root) { this.root = root; }

  public Path root() { return root; }

  @Override public String location() { return root.toString(); }

  @Override
  public Path staging(long step) throws IOException {
    return Files.createDirectories(root.resolve(CheckpointLayout.tmpDirName(step)));
  }

  @Override public void shardWritten(long step, Path file) {} // written in place and synced: nothing to move

  @Override
  public String commit(long step, Path staging, Manifest m) throws IOException {
    return CommitProtocol.commit(root, staging, m).toString();
  }

  @Override public void removeLeftovers(long current) throws IOException { CommitProtocol.removeLeftovers(root, current); }

  @Override
  public List<Long> committedSteps() {
    return CheckpointLayout.committed(root).stream().map(p -> CheckpointLayout.stepOf(p.getFileName().toString()).getAsLong()).toList();
  }

  @Override
  public OptionalLong latest() {
    Path latest = root.resolve(CheckpointLayout.LATEST);
    return latestText().map(t -> CheckpointLayout.parseLatest(latest.toString(), t)).orElse(OptionalLong.empty());
  }

  @Override
  public java.util.Optional<String> latestOwner() { return latestText().flatMap(CheckpointLayout::latestOwner); }

  /** The text of {@code latest}; empty when it is missing or unreadable (logged). */
  private java.util.Optional<String> latestText() {
    Path latest = root.resolve(CheckpointLayout.LATEST);
    if (!Files.isRegularFile(latest)) return java.util.Optional.empty();
    try {
      if (Files.size(latest) > CheckpointLayout.MAX_LATEST_BYTES) throw new IOException("over " + CheckpointLayout.MAX_LATEST_BYTES + " bytes");
      return java.util.Optional.of(Files.readString(latest, StandardCharsets.UTF_8));
    } catch (IOException e) {
      log.warn("{} cannot be read ({}); using the newest complete checkpoint", latest, e.getMessage());
      return java.util.Optional.empty();
    }
  }

  @Override public void delete(long step) throws IOException { FileSync.deleteTree(root.resolve(CheckpointLayout.stepDirName(step))); }

  @Override public Path fetch(long step) { return root.resolve(CheckpointLayout.stepDirName(step)); }

  @Override public String locationOf(long step) { return fetch(step).toString(); }

  @Override
  public void putRecord(String name, Path file) throws IOException { copyInto(root.resolve(RunRecord.DIR), name, file); }

  @Override
  public void putFile(String name, Path file) throws IOException { copyInto(root, CheckpointStorages.plainName(name), file); }

  private static void copyInto(Path dir, String name, Path file) throws IOException {
    Files.createDirectories(dir);
    Path tmp = dir.resolve(name + ".tmp");
    Files.copy(file, tmp, StandardCopyOption.REPLACE_EXISTING);
    Files.move(tmp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  @Override
  public boolean getRecord(String name, Path into) throws IOException {
    Path f = root.resolve(RunRecord.DIR).resolve(name);
    if (!Files.isRegularFile(f)) return false;
    Files.createDirectories(into.toAbsolutePath().getParent());
    Files.copy(f, into, StandardCopyOption.REPLACE_EXISTING);
    return true;
  }
}
