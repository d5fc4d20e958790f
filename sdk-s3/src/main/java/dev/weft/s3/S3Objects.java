package dev.weft.s3;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/** The few object calls checkpoints need, on one bucket, each with its own deadline (small calls, or scaled by the bytes moved). */
final class S3Objects {
  private final S3Client s3;
  private final String bucket;
  private final S3Settings settings;

  S3Objects(S3Client s3, String bucket, S3Settings settings) {
    this.s3 = s3;
    this.bucket = bucket;
    this.settings = settings;
  }

  private AwsRequestOverrideConfiguration limit(Duration d) {
    return AwsRequestOverrideConfiguration.builder().apiCallTimeout(d).apiCallAttemptTimeout(d).build();
  }

  private AwsRequestOverrideConfiguration small() { return limit(settings.callTimeout()); }

  void checkBucket() {
    s3.headBucket(b -> b.bucket(bucket).overrideConfiguration(small()));
  }

  void putFile(String key, Path file) throws IOException {
    long size = Files.size(file);
    s3.putObject(b -> b.bucket(bucket).key(key).contentLength(size).overrideConfiguration(limit(settings.transferTimeout(size))),
        RequestBody.fromFile(file));
  }

  void putBytes(String key, byte[] bytes) {
    s3.putObject(b -> b.bucket(bucket).key(key).contentLength((long) bytes.length).overrideConfiguration(limit(settings.transferTimeout(bytes.length))),
        RequestBody.fromBytes(bytes));
  }

  /** The object's bytes, at most {@code max} of them (a larger object reads as {@code max + 1} bytes); empty when there is no such key. */
  Optional<byte[]> getBytes(String key, long max) throws IOException {
    try (ResponseInputStream<GetObjectResponse> in = s3.getObject(b -> b.bucket(bucket).key(key).range("bytes=0-" + max)
        .overrideConfiguration(limit(settings.transferTimeout(max))))) {
      return Optional.of(readUpTo(in, max + 1));
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (S3Exception e) {
      if (e.statusCode() == 416) return Optional.of(new byte[0]); // an empty object has no byte 0
      throw e;
    }
  }

  /** Downloads at most {@code max + 1} bytes of the object to {@code file}; false when there is no such key. */
  boolean getFile(String key, Path file, long max) throws IOException {
    Files.deleteIfExists(file);
    try {
      s3.getObject(b -> b.bucket(bucket).key(key).range("bytes=0-" + max).overrideConfiguration(limit(settings.transferTimeout(max))),
          ResponseTransformer.toFile(file));
      return true;
    } catch (NoSuchKeyException e) {
      return false;
    } catch (S3Exception e) {
      if (e.statusCode() != 416) throw e;
      Files.write(file, new byte[0]);
      return true;
    }
  }

  /** Every key under {@code prefix}. */
  List<String> list(String prefix) {
    return listObjects(prefix).stream().map(S3Object::key).toList();
  }

  /** Every object under {@code prefix}, with its size and ETag. */
  List<S3Object> listObjects(String prefix) {
    List<S3Object> out = new ArrayList<>();
    s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix).overrideConfiguration(small())).contents().forEach(out::add);
    return out;
  }

  HeadObjectResponse head(String key) {
    return s3.headObject(b -> b.bucket(bucket).key(key).overrideConfiguration(small()));
  }

  /** The object's bytes from {@code offset}, {@code length} of them expected (the deadline scales with them). */
  InputStream stream(String key, long offset, long length) {
    return s3.getObject(b -> b.bucket(bucket).key(key).range("bytes=" + offset + "-").overrideConfiguration(limit(settings.transferTimeout(length))));
  }

  /** Deletes {@code keys} one call each: DeleteObjects needs a checksum header that not every S3-compatible server takes. */
  void delete(List<String> keys) {
    for (String k : keys) deleteOne(k);
  }

  void deleteOne(String key) {
    s3.deleteObject(b -> b.bucket(bucket).key(key).overrideConfiguration(small()));
  }

  private static byte[] readUpTo(InputStream in, long limit) throws IOException {
    return in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limit));
  }

  static boolean isSdk(Throwable t) { return t instanceof SdkException; }
}
