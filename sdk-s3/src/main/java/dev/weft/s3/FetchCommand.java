package dev.weft.s3;

import dev.weft.error.ExitCodes;
import dev.weft.error.WeftException;
import dev.weft.s3.fetch.CorruptObjectException;
import dev.weft.s3.fetch.FetchListener;
import dev.weft.s3.fetch.FetchSource;
import dev.weft.s3.fetch.Fetcher;
import dev.weft.s3.fetch.LocalSource;
import dev.weft.s3.fetch.SourceObject;
import dev.weft.spec.SpecException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;

/** {@code weft fetch SRC DIR}: a model or dataset directory from S3 or a mounted path into DIR, verified and resumable. */
@Command(name = "fetch", mixinStandardHelpOptions = true,
    description = {"Copy a Hugging Face model or dataset directory into DIR before training (a job's initializer step).",
        "Every object under SRC is copied to NAME.partial, checked (size; the MD5 of a single-part S3 object's ETag;"
            + " an x-amz-meta-sha256 where the uploader set one) and renamed. Run again after an interruption: complete"
            + " objects are skipped (DIR/.weft-fetch.json records their SHA-256) and a partial one continues.",
        "A corrupt object is refused (exit 2) and nothing of it is left in DIR.",
        "S3: endpoint, region and keys from AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY."})
public final class FetchCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "SRC", description = "s3://BUCKET/PREFIX, or a directory (e.g. a mounted PVC path).")
  String src;

  @Parameters(index = "1", paramLabel = "DIR", description = "The directory to copy into (created if missing).")
  Path dir;

  @Override
  public Integer call() {
    try {
      Fetcher.Result r = src.regionMatches(true, 0, "s3://", 0, 5) ? fromS3() : fetchLocal();
      System.out.printf("weft: fetched %s into %s: %d objects copied (%d bytes), %d already complete%n", src, dir, r.copied(), r.bytes(), r.skipped());
      return 0;
    } catch (CorruptObjectException e) {
      System.err.println("weft: " + e.getMessage());
      return ExitCodes.BAD_INPUT;
    } catch (IOException e) {
      throw new WeftException("fetching " + src + " into " + dir + " stopped: " + e.getMessage()
          + "; run the same command again to resume (complete objects are kept)", e);
    }
  }

  private Fetcher.Result fromS3() throws IOException {
    S3Location where = S3Location.parse(src, "SRC");
    S3Settings settings = S3Settings.fromEnvironment();
    try (S3Client client = S3StorageProvider.client(settings)) {
      FetchSource source = new S3FetchSource(where, settings, new S3Objects(client, where.bucket(), settings));
      List<SourceObject> objects;
      try {
        objects = source.list();
      } catch (SdkException e) {
        throw new SpecException("SRC", S3Errors.describe(where, settings, e));
      }
      try {
        return fetch(source, objects);
      } catch (SdkException e) {
        throw new WeftException("fetching " + src + " failed: " + S3Errors.describe(where, settings, e) + "; run again to resume");
      }
    }
  }

  private Fetcher.Result fetchLocal() throws IOException {
    Path root = Path.of(src);
    if (!Files.isDirectory(root)) throw new SpecException("SRC", src + " is not a directory; give s3://BUCKET/PREFIX or a directory path");
    if (root.toAbsolutePath().normalize().equals(dir.toAbsolutePath().normalize())) throw new SpecException("DIR", dir + " is SRC itself; give another directory");
    FetchSource source = new LocalSource(root);
    return fetch(source, source.list());
  }

  private Fetcher.Result fetch(FetchSource source, List<SourceObject> objects) throws IOException {
    if (objects.isEmpty()) throw new SpecException("SRC", src + " holds no objects; check the bucket and prefix (or path)");
    return new Fetcher(source, new FetchListener() {
      @Override public void finished(SourceObject o, boolean skipped) {
        System.out.printf("weft: %s %s (%d bytes)%n", skipped ? "complete" : "copied  ", o.name(), o.size());
      }
    }).fetchInto(dir, objects);
  }
}
