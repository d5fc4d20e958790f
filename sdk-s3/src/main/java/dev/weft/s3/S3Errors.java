package dev.weft.s3;

import dev.weft.error.WeftException;
import dev.weft.checkpoint.CheckpointException;
import dev.weft.spec.SpecException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * One line that says what to fix, from an SDK failure: a missing bucket, refused or absent
 * credentials, an endpoint nobody answers, a call past its deadline. The SDK's messages carry no
 * secrets; only their first line is kept.
 */
final class S3Errors {
  private S3Errors() {}

  /** A failure while opening {@code where}: a user mistake naming {@code checkpoint.dir}. */
  static WeftException atOpen(S3Location where, S3Settings s, SdkException e) {
    return new SpecException("checkpoint.dir", describe(where, s, e));
  }

  /** A failure of {@code what} (e.g. "uploading rank-00000.safetensors") during a save or a read. */
  static CheckpointException during(String what, S3Location where, S3Settings s, SdkException e) {
    return new CheckpointException(what + " failed: " + describe(where, s, e), e);
  }

  static String describe(S3Location where, S3Settings s, SdkException e) {
    if (e instanceof S3Exception se) {
      // a HEAD answer has no body, so no error code: the status says it all
      String code = se.awsErrorDetails() == null || se.awsErrorDetails().errorCode() == null ? "" : se.awsErrorDetails().errorCode();
      if ("NoSuchBucket".equals(code) || (se.statusCode() == 404 && code.isEmpty())) {
        return where + ": bucket '" + where.bucket() + "' does not exist at " + s.endpointText() + "; create it or fix the bucket name";
      }
      if (se.statusCode() == 403 || code.equals("InvalidAccessKeyId") || code.equals("SignatureDoesNotMatch") || code.equals("AccessDenied")) {
        return where + ": " + s.endpointText() + " refused the credentials (" + (code.isEmpty() ? "HTTP 403" : code)
            + "); set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (in a pod: from a Secret) to keys allowed on bucket '" + where.bucket() + "'";
      }
      return where + ": " + s.endpointText() + " answered HTTP " + se.statusCode() + (code.isEmpty() ? "" : " " + code) + ": " + firstLine(se.getMessage());
    }
    if (e instanceof ApiCallTimeoutException || e instanceof ApiCallAttemptTimeoutException) {
      return where + ": " + s.endpointText() + " did not answer in time (" + firstLine(e.getMessage())
          + "); raise WEFT_S3_TIMEOUT_S or lower WEFT_S3_MIN_MIBPS for a slow link";
    }
    String msg = firstLine(e.getMessage());
    if (e instanceof SdkClientException && msg.contains("credentials")) {
      return where + ": no AWS credentials found; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (in a pod: from a Secret)";
    }
    return where + ": cannot reach " + s.endpointText() + " (" + msg + "); check AWS_ENDPOINT_URL and that the server is up";
  }

  private static String firstLine(String m) {
    if (m == null) return "no message";
    int nl = m.indexOf('\n');
    String line = nl < 0 ? m : m.substring(0, nl);
    return line.length() > 300 ? line.substring(0, 300) + "..." : line;
  }
}
