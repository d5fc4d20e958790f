package dev.weft.s3;

import dev.weft.checkpoint.CheckpointStorage;
import dev.weft.checkpoint.CheckpointStorageProvider;
import java.nio.file.Path;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/** {@code checkpoint.dir: s3://bucket/prefix} (ServiceLoader): an S3 client from the environment, the bucket checked once. */
public final class S3StorageProvider implements CheckpointStorageProvider {
  @Override public String scheme() { return "s3"; }

  @Override
  public CheckpointStorage open(String uri, Path localWork) {
    S3Location where = S3Location.parse(uri);
    S3Settings settings = S3Settings.fromEnvironment();
    S3CheckpointStorage storage = new S3CheckpointStorage(where, settings, client(settings), localWork);
    try {
      storage.check();
    } catch (RuntimeException e) {
      storage.close();
      throw e;
    }
    return storage;
  }

  static S3Client client(S3Settings s) {
    S3ClientBuilder b = S3Client.builder()
        .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(java.time.Duration.ofSeconds(10)).socketTimeout(s.callTimeout()))
        .region(Region.of(s.region()))
        .credentialsProvider(DefaultCredentialsProvider.builder().build())
        // S3-compatible servers do not all take the trailing CRC checksums newer SDKs send by default; the manifest's SHA-256 covers the data
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(o -> o.apiCallTimeout(s.callTimeout()).apiCallAttemptTimeout(s.callTimeout()).retryStrategy(RetryMode.STANDARD));
    s.endpoint().ifPresent(e -> b.endpointOverride(e).forcePathStyle(true));
    return b.build();
  }
}
