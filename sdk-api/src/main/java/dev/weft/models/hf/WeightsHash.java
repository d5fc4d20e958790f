package dev.weft.models.hf;

import dev.weft.checkpoint.Sha256;
import dev.weft.spec.SpecException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;
import java.util.stream.Stream;

/**
 * The content hash of a Hugging Face directory's weights: SHA-256 over each {@code *.safetensors} file's
 * name and bytes, in name order. A LoRA checkpoint records it for its frozen base and a resume checks it.
 */
public final class WeightsHash {
  private WeightsHash() {}

  /**
   * The base in {@code dir} is the one whose hash {@code expected} a checkpoint recorded; else one line
   * naming {@code field}.
   */
  public static void requireSame(Path dir, String expected, String field, Object checkpoint) {
    String now = of(dir, field);
    if (!now.equals(expected)) {
      throw new SpecException(field, dir + " is not the base " + checkpoint + " was trained on (weights sha256 "
          + now.substring(0, 12) + "…, the checkpoint's base " + expected.substring(0, Math.min(12, expected.length()))
          + "…); give the same base model directory");
    }
  }

  public static String of(Path dir, String field) {
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> weights = files.filter(f -> f.getFileName().toString().endsWith(".safetensors") && Files.isRegularFile(f))
          .sorted().toList();
      if (weights.isEmpty()) throw new SpecException(field, dir + " holds no .safetensors weights to hash");
      MessageDigest md = Sha256.digest();
      for (Path f : weights) {
        md.update(f.getFileName().toString().getBytes(StandardCharsets.UTF_8));
        Sha256.update(md, f);
      }
      return Sha256.hex(md.digest());
    } catch (IOException e) {
      throw new UncheckedIOException("hashing the weights of " + dir, e);
    }
  }
}
