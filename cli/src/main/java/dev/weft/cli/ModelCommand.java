package dev.weft.cli;

import dev.weft.launch.UserPaths;
import dev.weft.checkpoint.DType;
import dev.weft.models.hf.HfDtypes;
import dev.weft.models.hf.HfExport;
import dev.weft.models.hf.HfModelInit;
import dev.weft.models.hf.HfShards;
import dev.weft.spec.SpecException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code weft model init}: Hugging Face model directories made here, without a download. */
@Command(name = "model", mixinStandardHelpOptions = true, description = "Make Hugging Face model directories.",
    subcommands = {ModelCommand.Init.class})
final class ModelCommand implements Runnable {
  @Override
  public void run() {
    picocli.CommandLine.usage(this, System.out);
  }

  @Command(name = "init", mixinStandardHelpOptions = true,
      description = "Write a randomly initialised Hugging Face directory shaped like a published model (its config.json values;"
          + " no download), to try memory, load time and layouts at real sizes.")
  static final class Init implements Callable<Integer> {
    @Option(names = "--like", required = true, paramLabel = "NAME",
        description = "llama-3.2-1b, llama-3.2-3b, llama-3.1-8b, qwen2.5-0.5b, qwen2.5-1.5b, qwen3-0.6b, mistral-7b-v0.3,"
            + " smollm2-135m or tinyllama-1.1b.") String like;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "The directory to write.") Path out;

    @Option(names = "--dtype", paramLabel = "bf16|fp16|fp32", defaultValue = "bf16", description = "Weights dtype (default: ${DEFAULT-VALUE}).")
    String dtype;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "0", description = "Seed of the random weights (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--max-shard-size", paramLabel = "SIZE", defaultValue = "5GB", description = "Largest weights file (default: ${DEFAULT-VALUE}).")
    String maxShardSize;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Change a value of the published config.json, e.g. --set"
        + " hidden_size=256 --set num_hidden_layers=2 (repeatable; checked against the value it replaces).") List<String> sets = new ArrayList<>();

    @Option(names = "--tokenizer", paramLabel = "DIR", description = "A Hugging Face tokenizer directory (or its tokenizer.json) to copy"
        + " in; its bos/eos tokens become the model's.") Path tokenizer;

    @Override
    public Integer call() throws Exception {
      HfExport.Options o = exportOptions(dtype, maxShardSize);
      HfModelInit.config(like, sets, tokenizer); // an unknown name, a bad --set or tokenizer is refused before anything is written
      UserPaths.writableDir(out, "--out");
      HfModelInit.Result r = HfModelInit.write(like, sets, tokenizer, out, o.dtype(), seed, o.maxShardBytes());
      System.out.printf("weft: wrote a random %s%s: %,d parameters, %d tensor(s), %s in %d file(s), %s, in %s%s%n", r.like(),
          sets.isEmpty() ? "" : " with " + String.join(", ", sets), r.parameters(), r.tensors(), CheckpointCommand.human(r.bytes()),
          r.files(), o.dtype(), r.dir(), tokenizer == null ? "" : ", with the tokenizer of " + tokenizer);
      return 0;
    }
  }

  /** {@code --dtype} (null: the default) and {@code --max-shard-size}, each refused in one line naming the flag. */
  static HfExport.Options exportOptions(String dtype, String maxShardSize) {
    DType d = null;
    if (dtype != null) {
      d = HfDtypes.parse(dtype);
      if (d == null) throw new SpecException("--dtype", "'" + dtype + "' is not a weights dtype; use bf16, fp16 or fp32");
    }
    Long max = HfShards.parseSize(maxShardSize);
    if (max == null) throw new SpecException("--max-shard-size", "'" + maxShardSize + "' is not a size; write it like 5GB, 500MB or 2GiB");
    return new HfExport.Options(d, max);
  }

  /** Where an export's config.json came from and what of it changed, for the export's last line. */
  static String configLine(HfExport.Result r) {
    if (r.source() == null) return "config.json written by Weft (the run had no model.pretrained)";
    String copied = r.copied().isEmpty() ? "no tokenizer files there" : "carried " + String.join(", ", r.copied());
    return "config.json kept from " + r.source() + (r.changed().isEmpty() ? " unchanged" : ", changed " + r.changed()) + "; " + copied;
  }
}
