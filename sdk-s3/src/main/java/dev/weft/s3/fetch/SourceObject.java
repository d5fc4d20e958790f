package dev.weft.s3.fetch;

import java.util.Optional;

/**
 * One object of a fetch source: its name under the source (a relative path with '/'), its size, the MD5 the source
 * vouches for (an S3 ETag of a single-part upload), a SHA-256 it declares (object metadata {@code sha256}), and a
 * tag that changes when the object does (an ETag, or a local file's size and modification time).
 */
public record SourceObject(String name, long size, Optional<String> md5, Optional<String> sha256, String tag) {
  public SourceObject {
    if (name.isEmpty() || name.startsWith("/") || name.contains("\\") || ("/" + name + "/").contains("/../") || ("/" + name + "/").contains("/./")) {
      throw new IllegalArgumentException("'" + name + "' is not a plain relative path");
    }
  }
}
