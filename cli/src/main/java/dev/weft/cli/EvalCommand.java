package dev.weft.cli;

import dev.weft.error.WeftException;
import dev.weft.data.ShardIndex;
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

/**
 * {@code weft eval MODEL --data TOKENS --seq-len N [--stride S]}: mean next-token loss and perplexity, written to
 * eval.json: whole documents up to the context where the data records them, else (or with {@code --stride}) windows.
 */
@Command(name = "eval", mixinStandardHelpOptions = true,
    description = {"Mean next-token cross-entropy of a model over the targets of the data (chat shards: the flagged tokens alone);"
        + " writes eval.json.",
        "Data that records its documents (shards from weft data prepare: conversations, texts) is scored a document at a time,"
        + " each from its start and up to seq-len + 1 tokens, the targets past that counted as cut; other data, or any with"
        + " --stride, in windows of seq-len + 1 tokens every --stride tokens, each scoring the targets the earlier ones did not."})
final class EvalCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "MODEL", description = "A Hugging Face directory, a PEFT adapter, a consolidated .safetensors file or a checkpoint.")
  Path model;

  @Option(names = "--data", required = true, paramLabel = "TOKENS", description = "A .npy file of token ids or a token-shard directory (weft data prepare).")
  Path data;

  @Option(names = "--seq-len", required = true, paramLabel = "N", description = "The context: tokens predicted per document or window (each holds up to N + 1 tokens).")
  int seqLen;

  @Option(names = "--stride", paramLabel = "S", description = "Windows every S tokens (1 to --seq-len; S = --seq-len: consecutive windows) instead of"
      + " whole documents; the default for data without documents is --seq-len.")
  Integer stride;

  @Option(names = {"-o", "--out"}, paramLabel = "FILE", defaultValue = "eval.json", description = "Where to write the result (default: ${DEFAULT-VALUE}).")
  Path out;

  @picocli.CommandLine.Mixin PrecisionOption precisionOption;

  @Override
  public Integer call() throws Exception {
    dev.weft.spec.SpecValidator.require(seqLen >= 1, "--seq-len", seqLen + " must be at least 1");
    dev.weft.spec.SpecValidator.require(stride == null || (stride >= 1 && stride <= seqLen), "--stride", stride + " must be from 1 to --seq-len " + seqLen);
    TokenArray tokens = tokens(data);
    TokenArray flags = flags(data);
    long[] ends = stride == null ? documentEnds(data) : null;
    String precision = precisionOption.value();
    var m = ModelSource.open(model, seqLen, precision).model();
    Evaluation.Result r;
    try (var ac = dev.weft.precision.Autocast.of(precision)) {
      r = ends != null ? Evaluation.documents(m, tokens, flags, ends, seqLen)
          : Evaluation.windows(m, tokens, flags, seqLen, stride == null ? seqLen : stride);
    }
    String how = ends != null ? "whole documents up to " + (seqLen + 1) + " tokens"
        : "windows of " + (seqLen + 1) + " tokens every " + (stride == null ? seqLen : stride);
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("loss", r.loss());
    json.put("tokens", r.tokens());
    json.put("targets_cut", r.cut());
    json.put("perplexity", r.perplexity());
    json.put("scoring", ends != null ? "documents" : "windows");
    if (ends == null) json.put("stride", stride == null ? seqLen : stride);
    json.put("model", model.toString());
    json.put("data", data.toString());
    json.put("seq_len", seqLen);
    Path parent = out.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Files.writeString(out, SpecIO.jsonMapper().writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n");
    System.out.printf("weft: loss %.6f over %d targets (%s; %d target(s) %s), perplexity %.4f; wrote %s%n", r.loss(), r.tokens(), how,
        r.cut(), ends != null ? "past a document's context not scored" : "in the tail after the last window not scored", r.perplexity(), out);
    return 0;
  }

  /** The document ends of a shard directory that records them; else null (the data is scored in windows). */
  static long[] documentEnds(Path data) {
    return Files.isDirectory(data) && ShardIndex.isShardDirectory(data) ? ShardIndex.read(data).documentEnds(data) : null;
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
