package dev.weft.s3;

import dev.weft.s3.fetch.FetchSource;
import dev.weft.s3.fetch.Fetcher;
import dev.weft.s3.fetch.SourceObject;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The objects under {@code s3://bucket/prefix/}: a single-part object's ETag is the MD5 of its bytes and is checked;
 * a multipart one (ETag {@code md5-N}) is checked by the SHA-256 in its metadata ({@code x-amz-meta-sha256}) when
 * the uploader wrote one, and by its size always. A failed request reads as an {@link IOException}, which the
 * fetch retries from where the partial file stopped.
 */
final class S3FetchSource implements FetchSource {
  private static final Pattern MD5 = Pattern.compile("[0-9a-fA-F]{32}");

  private final S3Location where;
  private final S3Settings settings;
  private final S3Objects objects;

  S3FetchSource(S3Location where, S3Settings settings, S3Objects objects) {
    this.where = where;
    this.settings = settings;
    this.objects = objects;
  }

  @Override
  public List<SourceObject> list() {
    List<SourceObject> out = new ArrayList<>();
    for (S3Object o : objects.listObjects(where.prefix())) {
      String name = o.key().substring(where.prefix().length());
      if (name.isEmpty() || name.endsWith("/") || Fetcher.isBookkeeping(name)) continue; // folder markers
      String etag = unquote(o.eTag());
      HeadObjectResponse head = objects.head(o.key());
      boolean etagIsMd5 = MD5.matcher(etag).matches() && !encryptedWithKeys(head);
      out.add(new SourceObject(name, o.size(), etagIsMd5 ? Optional.of(etag) : Optional.empty(),
          Optional.ofNullable(head.metadata().get("sha256")), etag));
    }
    return out;
  }

  /** SSE-KMS and SSE-C objects have ETags that are not the MD5 of their bytes (SSE-S3's still are). */
  private static boolean encryptedWithKeys(HeadObjectResponse head) {
    String sse = head.serverSideEncryptionAsString();
    return (sse != null && sse.startsWith("aws:kms")) || head.sseCustomerAlgorithm() != null;
  }

  @Override
  public InputStream open(SourceObject o, long offset) throws IOException {
    if (offset >= o.size()) return InputStream.nullInputStream(); // no byte to ask for: S3 answers 416
    try {
      return objects.stream(where.key(o.name()), offset, o.size() - offset);
    } catch (SdkException e) {
      throw new IOException(o.name() + ": " + S3Errors.describe(where, settings, e), e);
    }
  }

  @Override public String describe() { return where.toString(); }

  private static String unquote(String etag) {
    return etag == null ? "" : etag.replace("\"", "");
  }
}
