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
