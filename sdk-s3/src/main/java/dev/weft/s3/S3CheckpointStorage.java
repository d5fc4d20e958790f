package dev.weft.s3;

import dev.weft.checkpoint.CheckpointException;
import dev.weft.checkpoint.CheckpointLayout;
import dev.weft.checkpoint.CheckpointStorage;
import dev.weft.checkpoint.CheckpointStorages;
import dev.weft.checkpoint.CorruptCheckpointException;
import dev.weft.checkpoint.Manifest;
import dev.weft.checkpoint.RunRecord;
import dev.weft.checkpoint.ManifestIO;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Checkpoints under {@code s3://bucket/prefix/}: {@code step-N/rank-*.safetensors},
 * {@code step-N/manifest.json}, {@code latest}. Shards are written to a local staging folder as on
 * disk and uploaded whole; a PUT is atomic per object, and the manifest is uploaded only after every
 * rank reported its upload, so a step with a manifest is committed and {@code latest}, uploaded after
 * it, is the same pointer as on disk. Reads download the manifest, then the files it lists, into a
 * local cache, where {@link dev.weft.checkpoint.Checkpoint} verifies them as it does a directory.
 */
final class S3CheckpointStorage implements CheckpointStorage {
  private static final Logger log = LoggerFactory.getLogger(S3CheckpointStorage.class);
  private static final Pattern STEP_KEY = Pattern.compile("(step-\\d{1,18})/(.+)");

  private final S3Location where;
  private final S3Settings settings;
  private final S3Client client;
  private final S3Objects objects;
  private final Path staging;
  private final Path fetched;

  S3CheckpointStorage(S3Location where, S3Settings settings, S3Client client, Path localWork) {
    this.where = where;
    this.settings = settings;
    this.client = client;
    this.objects = new S3Objects(client, where.bucket(), settings);
    this.staging = localWork.resolve("staging");
    this.fetched = localWork.resolve("fetched");
  }

  /** Fails with one line when the bucket is missing, the credentials are refused or nothing answers. */
  void check() {
    try {
      objects.checkBucket();
    } catch (SdkException e) {
      throw S3Errors.atOpen(where, settings, e);
    }
  }

  @Override public String location() { return where.toString(); }

  @Override
  public Path staging(long step) throws IOException {
    CheckpointStorages.deleteLocalTree(staging); // a shard left by an interrupted upload: in the bucket it was never committed
    return Files.createDirectories(staging.resolve(CheckpointLayout.tmpDirName(step)));
  }

  @Override
  public void shardWritten(long step, Path file) throws IOException {
    String name = file.getFileName().toString();
    call("uploading " + name + " of step " + step, () -> objects.putFile(stepKey(step, name), file));
    Files.deleteIfExists(file); // the bucket holds it now; the staging disk need not
  }

  @Override
  public String commit(long step, Path stagingDir, Manifest m) throws IOException {
    byte[] manifest = ManifestIO.sealedBytes(m);
    call("committing step " + step, () -> {
      List<String> strays = new ArrayList<>();
      for (String k : objects.list(stepKey(step, ""))) {
        String name = k.substring(stepKey(step, "").length());
        if (!m.files().containsKey(name)) strays.add(k); // shards of an earlier attempt at this step with more ranks
      }
      if (!strays.isEmpty()) objects.delete(strays);
      objects.putBytes(stepKey(step, Manifest.FILE_NAME), manifest); // the commit
      Object owner = m.state() == null ? null : m.state().get(CheckpointLayout.STATE_RUN_TOKEN); // whose run moved latest
      objects.putBytes(where.key(CheckpointLayout.LATEST), CheckpointLayout.latestText(step, owner).getBytes(StandardCharsets.UTF_8));
    });
    CheckpointStorages.deleteLocalTree(stagingDir);
    return locationOf(step);
  }

  /**
   * Deletes the objects of steps that have no manifest (saves cut short), other than {@code current};
   * an earlier committed copy of {@code current} loses its manifest first, so that no mix of its old
   * manifest and new shards is ever committed.
   */
  @Override
  public void removeLeftovers(long current) throws IOException {
    call("removing what interrupted saves left", () -> {
      Map<String, List<String>> byStep = keysByStep();
      for (Map.Entry<String, List<String>> e : byStep.entrySet()) {
        long s = CheckpointLayout.stepOf(e.getKey()).getAsLong();
        boolean committed = e.getValue().contains(stepKey(s, Manifest.FILE_NAME));
        if (s == current && committed) objects.deleteOne(stepKey(s, Manifest.FILE_NAME));
        else if (s != current && !committed) objects.delete(e.getValue());
      }
    });
  }

  @Override
  public List<Long> committedSteps() {
    List<Long> out = new ArrayList<>();
    Map<String, List<String>> byStep;
    try {
      byStep = keysByStep();
    } catch (SdkException e) {
      throw S3Errors.during("listing checkpoints", where, settings, e);
    }
    for (Map.Entry<String, List<String>> e : byStep.entrySet()) {
      long s = CheckpointLayout.stepOf(e.getKey()).getAsLong();
      if (e.getValue().contains(stepKey(s, Manifest.FILE_NAME))) out.add(s);
    }
    return out;
  }

  @Override
  public OptionalLong latest() {
    return latestText().map(t -> CheckpointLayout.parseLatest(location() + "/" + CheckpointLayout.LATEST, t)).orElse(OptionalLong.empty());
  }

  @Override
  public Optional<String> latestOwner() { return latestText().flatMap(CheckpointLayout::latestOwner); }

  /** The text of {@code latest}; empty when it is missing or unreadable (logged). */
  private Optional<String> latestText() {
    String key = where.key(CheckpointLayout.LATEST);
    try {
      Optional<byte[]> b = objects.getBytes(key, CheckpointLayout.MAX_LATEST_BYTES);
      if (b.isEmpty()) return Optional.empty();
      if (b.get().length > CheckpointLayout.MAX_LATEST_BYTES) throw new IOException("over " + CheckpointLayout.MAX_LATEST_BYTES + " bytes");
      return Optional.of(new String(b.get(), StandardCharsets.UTF_8));
    } catch (IOException | SdkException e) {
      String why = e instanceof SdkException se ? S3Errors.describe(where, settings, se) : e.getMessage();
      log.warn("{}/{} cannot be read ({}); using the newest complete checkpoint", location(), CheckpointLayout.LATEST, why);
      return Optional.empty();
    }
  }


  @Override
  public void delete(long step) throws IOException {
    call("deleting step " + step, () -> {
      objects.deleteOne(stepKey(step, Manifest.FILE_NAME)); // uncommitted from here on
      objects.delete(objects.list(stepKey(step, "")));
    });
  }

  @Override
  public Path fetch(long step) {
    Path dir = fetched.resolve(CheckpointLayout.stepDirName(step));
    try {
      dropFetched();
      Files.createDirectories(dir);
      call("downloading step " + step, () -> {
        if (!objects.getFile(stepKey(step, Manifest.FILE_NAME), dir.resolve(Manifest.FILE_NAME), ManifestIO.MAX_MANIFEST_BYTES)) return;
        Manifest m = ManifestIO.read(dir); // damage shows here before any shard is fetched
        for (Map.Entry<String, Manifest.FileRecord> f : m.files().entrySet()) {
          // one byte past the recorded size, so that a longer object reads as the wrong size
          objects.getFile(stepKey(step, f.getKey()), dir.resolve(f.getKey()), f.getValue().bytes());
        }
      });
    } catch (IOException e) {
      throw new CorruptCheckpointException(dir, "cannot be downloaded from " + locationOf(step) + ": " + e.getMessage(), e);
    }
    return dir;
  }

  @Override
  public void dropFetched() {
    try {
      CheckpointStorages.deleteLocalTree(fetched);
    } catch (IOException e) {
      log.warn("could not remove the downloaded checkpoint under {}: {}", fetched, e.getMessage());
    }
  }

  @Override
  public void putRecord(String name, Path file) throws IOException {
    call("uploading the run record's " + name, () -> objects.putFile(recordKey(name), file));
  }

  @Override
  public boolean getRecord(String name, Path into) throws IOException {
    boolean[] found = new boolean[1];
    Files.createDirectories(into.toAbsolutePath().getParent());
    call("downloading the run record's " + name, () -> found[0] = objects.getFile(recordKey(name), into, RunRecord.MAX_BYTES));
    return found[0];
  }

  @Override
  public void putFile(String name, Path file) throws IOException {
    if (name.contains("/")) throw new IllegalArgumentException("not a plain file name: '" + name + "'");
    call("uploading " + name, () -> objects.putFile(where.key(name), file));
  }

  private String recordKey(String name) { return where.key(RunRecord.DIR + "/" + name); }

  @Override
  public void close() {
    client.close();
  }

  private String stepKey(long step, String name) { return where.key(CheckpointLayout.stepDirName(step) + "/" + name); }

  /** Keys under the prefix that lie in a {@code step-N/} folder, by folder name. */
  private Map<String, List<String>> keysByStep() {
    Map<String, List<String>> out = new TreeMap<>();
    for (String k : objects.list(where.prefix())) {
      Matcher m = STEP_KEY.matcher(k.substring(where.prefix().length()));
      if (m.matches() && CheckpointLayout.stepOf(m.group(1)).isPresent()) out.computeIfAbsent(m.group(1), x -> new ArrayList<>()).add(k);
    }
    return out;
  }

  private interface Call {
    void run() throws IOException;
  }

  /** Runs {@code c}, turning SDK failures into one line that names {@code what} and what to fix. */
  private void call(String what, Call c) throws IOException {
    try {
      c.run();
    } catch (SdkException e) {
      throw S3Errors.during(what, where, settings, e);
    }
  }
}
