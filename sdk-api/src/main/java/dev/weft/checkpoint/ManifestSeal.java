package dev.weft.checkpoint;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The manifest's own checksum. The file is the manifest's JSON with one first member,
 * {@code "manifest_sha256"}, the SHA-256 of the exact bytes of the JSON without that member (so the
 * file stays plain JSON and any changed byte, even one that leaves valid JSON, is caught).
 */
final class ManifestSeal {
  static final String FIELD = "manifest_sha256";
  private static final Pattern SEALED = Pattern.compile("\\A\\{\n  \"" + FIELD + "\" : \"([0-9a-f]{64})\",");

  private ManifestSeal() {}

  /** {@code body} (a JSON object starting with {@code '{'}) with the seal inserted as its first member. */
  static byte[] seal(byte[] body) {
    if (body.length < 2 || body[0] != '{') throw new IllegalArgumentException("a manifest is a JSON object");
    byte[] head = ("{\n  \"" + FIELD + "\" : \"" + Sha256.hex(Sha256.digest().digest(body)) + "\",").getBytes(StandardCharsets.US_ASCII);
    byte[] out = Arrays.copyOf(head, head.length + body.length - 1);
    System.arraycopy(body, 1, out, head.length, body.length - 1);
    return out;
  }

  /** Whether {@code file} starts with a seal at all (a version-1 manifest has none). */
  static boolean isSealed(byte[] file) { return SEALED.matcher(ascii(file)).find(); }

  /** The body of a sealed manifest; null when there is no seal or it does not match the bytes. */
  static byte[] unseal(byte[] file) {
    Matcher m = SEALED.matcher(ascii(file));
    if (!m.find()) return null;
    byte[] body = new byte[file.length - m.end() + 1];
    body[0] = '{';
    System.arraycopy(file, m.end(), body, 1, file.length - m.end());
    return Sha256.hex(Sha256.digest().digest(body)).equals(m.group(1)) ? body : null;
  }

  /** The first bytes as Latin-1, enough for the seal pattern (one char per byte, so offsets match). */
  private static String ascii(byte[] file) {
    return new String(file, 0, Math.min(file.length, 128), StandardCharsets.ISO_8859_1);
  }
}
