package dev.weft.s3;

import dev.weft.spec.SpecException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code s3://bucket/prefix}: the bucket and the key prefix (empty, or ending in '/') that the checkpoints live under. */
record S3Location(String bucket, String prefix) {
  private static final Pattern URI = Pattern.compile("(?i)s3://([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:/(.*))?");

  static S3Location parse(String uri) { return parse(uri, "checkpoint.dir"); }

  /** Parses {@code uri}, naming {@code field} (where the user gave it) in the error. */
  static S3Location parse(String uri, String field) {
    int at = uri.indexOf('@'), slash = uri.indexOf('/', "s3://".length());
    if (at >= 0 && (slash < 0 || at < slash)) { // s3://KEY:SECRET@bucket: never echo it
      throw new SpecException(field, "s3://...@" + uri.substring(at + 1) + " holds credentials; give s3://BUCKET/PREFIX and set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY instead");
    }
    Matcher m = URI.matcher(uri);
    if (!m.matches()) {
      throw new SpecException(field, uri + " is not s3://BUCKET/PREFIX with a bucket name of 3-63 lower-case letters, digits, '.' or '-'");
    }
    String p = m.group(2) == null ? "" : m.group(2).replaceAll("/+$", "");
    return new S3Location(m.group(1), p.isEmpty() ? "" : p + "/");
  }

  /** The object key of {@code name} under the prefix. */
  String key(String name) { return prefix + name; }

  @Override public String toString() { return "s3://" + bucket + "/" + prefix.replaceAll("/$", ""); }
}
