package dev.weft.cli;

import dev.weft.error.WeftException;
import dev.weft.data.PackedSamples;
import dev.weft.data.ShardIndex;
import dev.weft.data.TokenSource;
import dev.weft.data.TokenArray;
import dev.weft.eval.Evaluation;
import dev.weft.eval.ModelSource;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code weft eval MODEL --data TOKENS --seq-len N}: mean next-token loss and perplexity, written to eval.json. */
@Command(name = "eval", mixinStandardHelpOptions = true,
    description = "Mean next-token cross-entropy of a model over the targets of consecutive windows of seq-len + 1 tokens"
        + " (chat shards: the flagged tokens alone); writes eval.json.")
final class EvalCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "MODEL", description = "A Hugging Face directory, a consolidated .safetensors file or a checkpoint.")
  Path model;

  @Option(names = "--data", required = true, paramLabel = "TOKENS", description = "A .npy file of token ids or a token-shard directory (weft data prepare).")
  Path data;

  @Option(names = "--seq-len", required = true, paramLabel = "N", description = "Tokens predicted per window (each window holds N + 1 tokens).")
  int seqLen;

  @Option(names = {"-o", "--out"}, paramLabel = "FILE", defaultValue = "eval.json", description = "Where to write the result (default: ${DEFAULT-VALUE}).")
  Path out;

  @picocli.CommandLine.Mixin PrecisionOption precisionOption;

  @Override
  public Integer call() throws Exception {
    dev.weft.spec.SpecValidator.require(seqLen >= 1, "--seq-len", seqLen + " must be at least 1");
    TokenArray tokens = tokens(data);
    TokenSource packed = packed(data, tokens, seqLen);
    String precision = precisionOption.value();
    var m = ModelSource.open(model, seqLen, precision).model();
    Evaluation.Result r;
    try (var ac = dev.weft.precision.Autocast.of(precision)) {
      r = packed != null ? Evaluation.run(m, packed, seqLen) : Evaluation.run(m, tokens, flags(data), seqLen);
    }
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("loss", r.loss());
    json.put("tokens", r.tokens());
    json.put("perplexity", r.perplexity());
    json.put("model", model.toString());
    json.put("data", data.toString());
    json.put("seq_len", seqLen);
    Path parent = out.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Files.writeString(out, SpecIO.jsonMapper().writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n");
    System.out.printf("weft: loss %.6f over %d tokens, perplexity %.4f; wrote %s%n", r.loss(), r.tokens(), r.perplexity(), out);
    return 0;
  }

  /** Chat shards that record their documents, packed as training packs them (every sample once); else null. */
  static TokenSource packed(Path data, TokenArray tokens, int seqLen) {
    if (!Files.isDirectory(data) || !ShardIndex.isShardDirectory(data)) return null;
    ShardIndex ix = ShardIndex.read(data);
    long[] ends = ix.flagged() ? ix.documentEnds(data) : null;
    return ends == null ? null
        : PackedSamples.split(tokens, ix.openFlags(data), ends, true, data.toString(), ix.vocabSize(), seqLen, 0, 0).train();
  }

  /** The target flags of a shard directory of chat data (the loss is over those tokens alone); null: all are targets. */
  static TokenArray flags(Path data) {
    return Files.isDirectory(data) && ShardIndex.isShardDirectory(data) ? ShardIndex.read(data).openFlags(data) : null;
  }

  /** Token ids from a .npy file or a shard directory, memory-mapped. */
  static TokenArray tokens(Path data) {
    if (Files.isDirectory(data) && ShardIndex.isShardDirectory(data)) return ShardIndex.read(data).open(data);
    if (Files.isRegularFile(data) && data.toString().endsWith(".npy")) return TokenArray.npy(data);
    throw new SpecException("--data", data + " is neither a .npy file of token ids nor a token-shard directory with index.json");
  }
}
