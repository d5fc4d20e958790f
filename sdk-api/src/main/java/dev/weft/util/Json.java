package dev.weft.util;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * The shared Jackson mappers for files and lines with no custom binding (manifests of shards, Hugging Face
 * configs, log lines). Configured once here and never changed after, so they are safe to share across threads.
 * Formats with their own binding rules (the spec, metrics, checkpoint manifests) keep their own mapper.
 */
public final class Json {
  /** Compact output, default binding. */
  public static final ObjectMapper PLAIN = new ObjectMapper();
  /**
   * Reading files that may have been altered (indexes, model configs): a key given twice, or a second
   * value after the first, is refused rather than resolved by whichever one the parser keeps.
   */
  public static final ObjectMapper STRICT = new ObjectMapper(JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  /** Indented output, for files people read. */
  public static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Json() {}
}
