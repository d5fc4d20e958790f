package dev.weft.checkpoint;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The manifest's seal: one first member of its JSON over the exact bytes of the JSON without that
 * member (so the file stays plain JSON and any changed byte, even one that leaves valid JSON, is
 * caught). Without a key it is {@code "manifest_sha256"}, the SHA-256 — integrity against accidents
 * only, since anyone can recompute it. With a {@link CheckpointKey} it is {@code "manifest_hmac_sha256"},
 * an HMAC-SHA256 only a key holder can produce; as the manifest holds every shard's SHA-256, that
 * seals the whole checkpoint. A reader with a key accepts only keyed seals, so stripping the HMAC and
 * resealing without the key is refused too.
 */
final class ManifestSeal {
  static final String FIELD = "manifest_sha256";
  static final String KEYED_FIELD = "manifest_hmac_sha256";
  private static final Pattern SEALED = Pattern.compile("\\A\\{\n  \"(" + FIELD + "|" + KEYED_FIELD + ")\" : \"([0-9a-f]{64})\",");

  private ManifestSeal() {}

  /** {@code body} (a JSON object starting with {@code '{'}) with its SHA-256 seal inserted as its first member. */
  static byte[] seal(byte[] body) { return seal(body, CheckpointKey.NONE); }

  /** {@code body} with its seal, keyed when {@code key} is present. */
  static byte[] seal(byte[] body, CheckpointKey key) {
    if (body.length < 2 || body[0] != '{') throw new IllegalArgumentException("a manifest is a JSON object");
    String field = key.present() ? KEYED_FIELD : FIELD;
    String value = key.present() ? key.hmacHex(body) : Sha256.hex(Sha256.digest().digest(body));
    byte[] head = ("{\n  \"" + field + "\" : \"" + value + "\",").getBytes(StandardCharsets.US_ASCII);
    byte[] out = Arrays.copyOf(head, head.length + body.length - 1);
    System.arraycopy(body, 1, out, head.length, body.length - 1);
    return out;
  }

  /**
   * The body of the manifest {@code bytes} read from {@code file}, once its seal matches; otherwise a
   * {@link CorruptCheckpointException} saying which seal is missing or wrong (never the key).
   */
  static byte[] open(Path file, byte[] bytes, CheckpointKey key) {
    Matcher m = SEALED.matcher(new String(bytes, 0, Math.min(bytes.length, 160), StandardCharsets.ISO_8859_1));
    if (!m.find()) {
      throw new CorruptCheckpointException(file, "has no " + FIELD + " seal as its first member: it was damaged or its seal removed"
          + " (format version 1, written before seals, is no longer read)");
    }
    byte[] body = new byte[bytes.length - m.end() + 1];
    body[0] = '{';
    System.arraycopy(bytes, m.end(), body, 1, bytes.length - m.end());
    boolean keyed = KEYED_FIELD.equals(m.group(1));
    if (keyed && !key.present()) {
      throw new CorruptCheckpointException(file, "is sealed with a checkpoint key (" + KEYED_FIELD + "); set " + CheckpointKey.ENV
          + " to the key it was written with to read it");
    }
    if (!keyed && key.present()) {
      throw new CorruptCheckpointException(file, "carries only an unkeyed " + FIELD + " but " + CheckpointKey.ENV
          + " is set: it was written without the key, or its keyed seal was replaced; refused");
    }
    boolean ok = keyed ? key.matches(body, m.group(2)) : Sha256.hex(Sha256.digest().digest(body)).equals(m.group(2));
    if (!ok) {
      throw new CorruptCheckpointException(file, keyed ? "does not match its " + KEYED_FIELD + " (altered, or sealed with another key)"
          : "does not match its own " + FIELD + " (damaged)");
    }
    return body;
  }
}
