package dev.weft.s3;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * How to reach the store, from the environment only: {@code AWS_ENDPOINT_URL_S3} or
 * {@code AWS_ENDPOINT_URL} (an S3-compatible server; path-style addressing), {@code AWS_REGION}
 * (default us-east-1), and Java system properties of the same meaning ({@code aws.endpointUrl},
 * {@code aws.region}). Credentials come from the AWS SDK's default chain (environment, system
 * properties, profile files, container/instance roles) and are never read or logged here.
 * {@code WEFT_S3_TIMEOUT_S} bounds every call that moves no bulk data (default 60 s); transfers get
 * that plus one second per {@code WEFT_S3_MIN_MIBPS} MiB (default 8 MiB/s).
 */
record S3Settings(Optional<URI> endpoint, String region, Duration callTimeout, double minMibPerSecond) {
  static S3Settings fromEnvironment() {
    Optional<URI> endpoint = first("AWS_ENDPOINT_URL_S3", "aws.endpointUrlS3").or(() -> first("AWS_ENDPOINT_URL", "aws.endpointUrl")).map(URI::create);
    String region = first("AWS_REGION", "aws.region").or(() -> first("AWS_DEFAULT_REGION", "aws.defaultRegion")).orElse("us-east-1");
    long timeout = first("WEFT_S3_TIMEOUT_S", "weft.s3.timeoutS").map(Long::parseLong).orElse(60L);
    double mibps = first("WEFT_S3_MIN_MIBPS", "weft.s3.minMibps").map(Double::parseDouble).orElse(8.0);
    return new S3Settings(endpoint, region, Duration.ofSeconds(timeout), mibps);
  }

  /** The limit for moving {@code bytes} in one call. */
  Duration transferTimeout(long bytes) {
    return callTimeout.plusMillis((long) (bytes / (minMibPerSecond * 1048576.0) * 1000));
  }

  String endpointText() { return endpoint.map(URI::toString).orElse("AWS S3 (" + region + ")"); }

  private static Optional<String> first(String env, String property) {
    String v = System.getProperty(property);
    if (v == null || v.isBlank()) v = System.getenv(env);
    return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.strip());
  }
}
