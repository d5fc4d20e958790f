package dev.weft.checkpoint;

import dev.weft.spec.SpecException;
import java.nio.file.Path;
import java.util.ServiceLoader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Opens {@code checkpoint.dir}: a plain path is a local directory, {@code SCHEME://...} goes to the provider of that scheme. */
public final class CheckpointStorages {
  private static final Pattern URI = Pattern.compile("([a-zA-Z][a-zA-Z0-9+.-]*)://.*");

  private CheckpointStorages() {}

  /** Whether {@code dir} is a URI ({@code s3://...}) rather than a local path. */
  public static boolean isUri(String dir) { return dir != null && URI.matcher(dir).matches(); }

  /** {@code dir} as storage; {@code localWork} holds staging and download cache for object stores. */
  public static CheckpointStorage open(String dir, Path localWork) {
    Matcher m = URI.matcher(dir);
    if (!m.matches()) return new LocalCheckpointStorage(Path.of(dir));
    String scheme = m.group(1).toLowerCase(java.util.Locale.ROOT);
    if (scheme.equals("file")) return new LocalCheckpointStorage(Path.of(java.net.URI.create(dir)));
    return provider("checkpoint.dir", dir, scheme).open(dir, localWork);
  }

  /**
   * As {@link #open}, every failure to open (a missing bucket, refused credentials, nobody answering: object stores
   * check at open) one line naming {@code field}, the field {@code uri} came from.
   */
  public static CheckpointStorage openAs(String field, String uri, Path localWork) {
    try {
      return open(uri, localWork);
    } catch (SpecException e) {
      throw e.about(field); // the storage names checkpoint.dir, its usual field
    } catch (RuntimeException e) {
      throw new SpecException(field, uri + ": " + e.getMessage());
    }
  }

  /** Refuses, naming {@code field}, a URI whose scheme no storage on the class path serves; a local path passes. */
  public static void requireProvider(String field, String dir) {
    Matcher m = URI.matcher(dir);
    if (m.matches() && !m.group(1).equalsIgnoreCase("file")) provider(field, dir, m.group(1).toLowerCase(java.util.Locale.ROOT));
  }

  private static CheckpointStorageProvider provider(String field, String dir, String scheme) {
    for (CheckpointStorageProvider p : ServiceLoader.load(CheckpointStorageProvider.class)) {
      if (p.scheme().equalsIgnoreCase(scheme)) return p;
    }
    throw new SpecException(field, dir + ": no checkpoint storage for '" + scheme + "://' is on the class path"
        + (scheme.equals("s3") ? " (add the weft-sdk-s3 module)" : "") + "; use a local directory or s3://bucket/prefix");
  }

  /** {@code name} when it is one plain file name (no separator, not {@code .} or {@code ..}); otherwise an error. */
  static String plainName(String name) {
    if (!name.matches("[A-Za-z0-9._-]+") || name.equals(".") || name.equals("..")) {
      throw new IllegalArgumentException("not a plain file name: '" + name + "'");
    }
    return name;
  }

  /**
   * A URI naming one checkpoint ({@code s3://bucket/prefix/step-000010}) split into its root and
   * step, or null when it is no such URI.
   */
  public static Step stepUri(String uri) {
    if (!isUri(uri)) return null;
    String trimmed = trimmed(uri);
    int slash = trimmed.lastIndexOf('/');
    var step = CheckpointLayout.stepOf(trimmed.substring(slash + 1));
    return step.isPresent() ? new Step(trimmed.substring(0, slash), step.getAsLong()) : null;
  }

  /**
   * The storage to resume from with {@code --resume resume}: {@code current} itself, or, for the URI
   * of a checkpoint elsewhere, that checkpoint's storage (the caller closes it).
   */
  public static CheckpointStorage forResume(CheckpointStorage current, String resume, Path localWork) {
    Step s = stepUri(resume);
    return s == null || s.root().equals(trimmed(current.location())) ? current : open(s.root(), localWork);
  }

  static String trimmed(String location) { return location.replaceAll("/+$", ""); }

  /** Deletes a local folder and everything in it (staging and download caches); nothing when absent. */
  public static void deleteLocalTree(Path dir) throws java.io.IOException { FileSync.deleteTree(dir); }

  /** Checkpoint {@code step} under root URI {@code root}. */
  public record Step(String root, long step) {}
}
