package dev.weft.parallel.context;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;

import dev.weft.Trainer;
import dev.weft.data.ShardWriter;
import dev.weft.train.RunResult;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Context parallelism trains a Llama-family model (grouped-query heads, RoPE) at a sequence of 512 step for step
 * as one rank does, with each method that keeps every head on every rank (ring attention, all-gathered K/V):
 * cp=2 on plain samples and cp=4 on packed documents (whose masks and positions must follow each token's global
 * place), and cp=2 under a sliding window shorter than a chunk (Mistral's; all-gather trims the keys out of reach).
 */
class ContextParallelEquivalenceTest {
  private static final int SEQ = 512, VOCAB = 256;
  @TempDir static Path dir;

  private static RunResult one, packedOne, windowedOne; // the one-rank runs every method is held to

  @BeforeAll
  static void oneRank() {
    writeDocuments(dir.resolve("docs"));
    one = small().runDir(dir.resolve("one")).fit();
    packedOne = packed(dir.resolve("docs")).runDir(dir.resolve("p1")).fit();
    windowedOne = windowed().runDir(dir.resolve("w1")).fit();
  }

  /** 24 documents of 8 to 307 random tokens, every one a target, as token shards in {@code docs}. */
  static void writeDocuments(Path docs) {
    Random r = new Random(5);
    try (ShardWriter w = new ShardWriter(docs, VOCAB, "test", -1, 4096, true)) {
      for (int d = 0; d < 24; d++) {
        int[] ids = new int[8 + r.nextInt(300)];
        boolean[] flags = new boolean[ids.length];
        for (int i = 0; i < ids.length; i++) {
          ids[i] = r.nextInt(VOCAB);
          flags[i] = true;
        }
        w.append(ids, flags);
        w.endDocument();
      }
      w.finish();
    }
  }

  static Trainer small() { return family("llama"); }

  /** Mistral with a 96-token window: a rank's chunks of 128 (cp=2) reach into the chunk before only. */
  static Trainer windowed() { return family("mistral").set("model.config.sliding_window", 96); }

  private static Trainer family(String name) {
    return Trainer.model(name).set("model.config.hidden_size", 32).set("model.config.intermediate_size", 48)
        .set("model.config.num_hidden_layers", 2).set("model.config.num_attention_heads", 4)
        .set("model.config.num_key_value_heads", 2).set("model.config.initializer_range", 0.3).seqLen(SEQ).globalBatch(2).microBatches(1).steps(2).warmup(0)
        .lr(3e-3).seed(29);
  }

  static Trainer packed(Path docs) { return small().data(docs.toString()).set("data.packing", "true"); }

  @ParameterizedTest
  @ValueSource(strings = {"ring", "allgather"})
  void matchesOneRank(String method) {
    assertClose(small().contextParallel(2).set("parallel.cpMethod", method).runDir(dir.resolve(method + "-cp2")).fit().losses(),
        one.losses(), 1e-4);
    assertClose(packed(dir.resolve("docs")).contextParallel(4).set("parallel.cpMethod", method).runDir(dir.resolve(method + "-pcp4"))
        .fit().losses(), packedOne.losses(), 1e-4);
    assertClose(windowed().contextParallel(2).set("parallel.cpMethod", method).runDir(dir.resolve(method + "-w2")).fit().losses(),
        windowedOne.losses(), 1e-4);
  }
}
