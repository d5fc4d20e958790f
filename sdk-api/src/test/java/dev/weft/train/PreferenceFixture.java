package dev.weft.train;

import dev.weft.data.ShardIndex;
import dev.weft.data.prepare.Prepare;
import dev.weft.tokenizer.Tokenizer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A word-level tokenizer with a ChatML-like template (written by hand, no hub) and preference rows over it:
 * "what is A plus B ?" answered right (chosen) and wrong (rejected), prepared by {@code --format preference}.
 */
public final class PreferenceFixture {
  public static final List<String> WORDS = List.of("user", "assistant", "system", "what", "is", "plus", "?", "the", "answer",
      "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18", "maybe");

  private PreferenceFixture() {}

  /** The tokenizer directory: tokenizer.json (WordLevel, whitespace-split) and tokenizer_config.json with the template. */
  public static Path tokenizer(Path dir) throws IOException {
    Files.createDirectories(dir);
    StringBuilder vocab = new StringBuilder("{\"<|im_end|>\": 0, \"<|im_start|>\": 1, \"<unk>\": 2");
    for (int i = 0; i < WORDS.size(); i++) vocab.append(", \"").append(WORDS.get(i)).append("\": ").append(i + 3);
    vocab.append('}');
    String added = "{\"id\": %d, \"content\": \"%s\", \"single_word\": false, \"lstrip\": false, \"rstrip\": false, "
        + "\"normalized\": false, \"special\": true}";
    Files.writeString(dir.resolve("tokenizer.json"), "{\"version\": \"1.0\", \"truncation\": null, \"padding\": null, "
        + "\"added_tokens\": [" + added.formatted(0, "<|im_end|>") + ", " + added.formatted(1, "<|im_start|>") + "], "
        + "\"normalizer\": null, \"pre_tokenizer\": {\"type\": \"WhitespaceSplit\"}, \"post_processor\": null, \"decoder\": null, "
        + "\"model\": {\"type\": \"WordLevel\", \"vocab\": " + vocab + ", \"unk_token\": \"<unk>\"}}");
    String template = "{% for m in messages %}<|im_start|>{{ m.role }} {{ m.content }}<|im_end|> {% endfor %}"
        + "{% if add_generation_prompt %}<|im_start|>assistant {% endif %}";
    Files.writeString(dir.resolve("tokenizer_config.json"), "{\"chat_template\": \"" + template + "\", \"eos_token\": \"<|im_end|>\"}");
    return dir;
  }

  /** {@code n} rows: prompt, chosen (the right sum), rejected (a wrong one); every third as whole conversations. */
  public static Path rows(Path file, int n, long seed) throws IOException {
    Random r = new Random(seed);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int a = r.nextInt(9), b = r.nextInt(9), wrong = (a + b + 1 + r.nextInt(8)) % 19;
      String q = "what is " + a + " plus " + b + " ?";
      String good = "the answer is " + (a + b), bad = "maybe " + wrong;
      lines.add(i % 3 == 2
          ? "{\"chosen\": [" + msg("user", q) + ", " + msg("assistant", good) + "], \"rejected\": [" + msg("user", q) + ", "
              + msg("assistant", bad) + "]}"
          : "{\"prompt\": \"" + q + "\", \"chosen\": \"" + good + "\", \"rejected\": \"" + bad + "\"}");
    }
    Files.write(file, lines);
    return file;
  }

  private static String msg(String role, String content) {
    return "{\"role\": \"" + role + "\", \"content\": \"" + content + "\"}";
  }

  /** A tiny random Qwen 2 directory ({@code dir/hf}) and 24 preference pairs over the fixture's tokenizer ({@code dir/pairs}). */
  record Qwen2Pairs(Path hf, Path pairs) {
    /** DPO over the pairs at β {@code beta}, sequences of {@code seq}, 8 rows a step, lr 1e-2 from step 1. */
    dev.weft.Trainer dpo(double beta, int seq) {
      return dev.weft.Trainer.model("qwen2").pretrained(hf).data("preference:" + pairs).dpo(beta).seqLen(seq).globalBatch(8)
          .warmup(0).lr(1e-2).seed(5);
    }
  }

  static Qwen2Pairs qwen2Pairs(Path dir) throws Exception {
    Path hf = dev.weft.models.hf.HfReference.writeFamily("qwen2", dir.resolve("hf"), 31, true);
    Path pairs = dir.resolve("pairs");
    prepare(tokenizer(dir.resolve("tok")), rows(dir.resolve("rows.jsonl"), 24, 7), pairs);
    return new Qwen2Pairs(hf, pairs);
  }

  /** Prepares {@code rows} with the tokenizer under {@code tok} into {@code out}. */
  static ShardIndex prepare(Path tok, Path rows, Path out) {
    try (Tokenizer t = Tokenizer.open(tok.toString())) {
      return Prepare.run(new Prepare.Request(t, List.of(rows), out, "preference", null, 1 << 20, -1), (d, total, tokens) -> {});
    }
  }
}
