package dev.weft.cli;

import dev.weft.data.Npy;
import dev.weft.data.TokenWidth;
import dev.weft.models.hf.HfReference;
import dev.weft.models.llama.TinyHfLlama;
import dev.weft.train.PreferenceFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * The files docs/guide.md's examples name, made in the directory they run in: what a reader would have at hand
 * (the repository's sample configs and README.md, a model directory, chat and preference rows, token arrays), tiny.
 */
final class GuideWorld {
  private GuideWorld() {}

  static void build(Path repo, Path dir) throws Exception {
    copyTree(repo.resolve("samples/configs"), dir.resolve("samples/configs"));
    Files.copy(repo.resolve("README.md"), dir.resolve("README.md"));
    TinyHfLlama.write(dir.resolve("models/tiny-llama"), 7, false, false); // vocabulary 256, context 128
    Path qwen = HfReference.writeFamily("qwen2", dir.resolve("models/qwen2-tiny"), 41, true); // vocabulary 256, context 64
    PreferenceFixture.tokenizer(qwen); // word level, a ChatML-like template
    PreferenceFixture.rows(dir.resolve("prefs.jsonl"), 48, 5);
    chatRows(dir.resolve("train.jsonl"), 48, 6);
    PreferenceFixture.rows(dir.resolve("prefs-held.jsonl"), 8, 9); // held-out data (data.eval)
    chatRows(dir.resolve("held.jsonl"), 8, 7);
    Random r = new Random(8);
    for (String f : List.of("tokens.npy", "val.npy")) {
      int[] ids = new int[4096];
      for (int i = 0; i < ids.length; i++) ids[i] = r.nextInt(256);
      Npy.write(dir.resolve(f), TokenWidth.UINT16, ids);
    }
  }

  /** Conversations in the fixture's words: "what is A plus B ?" answered "the answer is A+B". */
  private static void chatRows(Path file, int n, long seed) throws Exception {
    Random r = new Random(seed);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int a = r.nextInt(9), b = r.nextInt(9);
      lines.add("{\"messages\": [{\"role\": \"user\", \"content\": \"what is " + a + " plus " + b + " ?\"}, "
          + "{\"role\": \"assistant\", \"content\": \"the answer is " + (a + b) + "\"}]}");
    }
    Files.write(file, lines);
  }

  static void copyTree(Path from, Path to) throws Exception {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) Files.createDirectories(target); else Files.copy(f, target);
      }
    }
  }
}
