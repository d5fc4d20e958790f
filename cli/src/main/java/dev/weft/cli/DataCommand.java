package dev.weft.cli;

import dev.weft.launch.ConsoleProgress;
import dev.weft.data.ShardIndex;
import dev.weft.data.prepare.LengthPolicy;
import dev.weft.data.prepare.Prepare;
import dev.weft.spec.SpecException;
import dev.weft.tokenizer.Tokenizer;
import dev.weft.tokenizer.chat.ChatEncoder;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code weft data prepare}: tokenize text or JSONL into memory-mapped token shards that training reads. */
@Command(name = "data", mixinStandardHelpOptions = true, description = "Prepare training data.",
    subcommands = {DataCommand.PrepareCommand.class})
final class DataCommand implements Runnable {
  @Override
  public void run() {
    picocli.CommandLine.usage(this, System.out);
  }

  @Command(name = "prepare", mixinStandardHelpOptions = true,
      description = "Tokenize text, JSONL, Parquet or chat files into token shards (DIR/index.json + shard-NNNNN.npy); "
          + "train on them with data.source: DIR.")
  static final class PrepareCommand implements Callable<Integer> {
    @Option(names = "--tokenizer", required = true, paramLabel = "T",
        description = "A Hugging Face tokenizer.json (or its directory; a checkpoint, run directory or PEFT export: the tokenizer of"
            + " the base it records), or 'bytes'.")
    String tokenizer;

    @Option(names = "--input", required = true, arity = "1..*", paramLabel = "FILE", description = "Input files (repeatable).")
    List<Path> inputs;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Where the shards and index.json go (a new directory).")
    Path out;

    @Option(names = "--format", defaultValue = "auto", paramLabel = "auto|text|jsonl|chat|preference",
        description = "How inputs hold documents (default: by extension; .jsonl/.ndjson/.json/.parquet are rows, the rest text). "
            + "chat: rows of messages (or prompt/completion) rendered with the tokenizer's chat_template, with target flags. "
            + "preference: rows of prompt, chosen and rejected (strings or messages) as pairs for DPO (data.source: preference:DIR).")
    String format;

    @Option(names = "--field", paramLabel = "NAME",
        description = "Rows: the field holding the text (default: text), or with --format chat the list of messages (default: messages).")
    String field;

    @Option(names = "--train-on", defaultValue = "assistant", paramLabel = "assistant|last|all",
        description = "Chat: which tokens are learned (default: every assistant turn, as TRL's assistant_only_loss; "
            + "last: the last assistant turn only; all: every token).")
    String trainOn;

    @Option(names = "--max-length", defaultValue = "0", paramLabel = "N",
        description = "Tokens one document or conversation may hold (default 0: any; set it to the training seqLen to decide "
            + "here what a longer one loses).")
    int maxLength;

    @Option(names = "--truncation", defaultValue = "right", paramLabel = "right|left|drop",
        description = "What --max-length does to a longer one: keep its first N tokens (right), its last N (left), or drop it.")
    String truncation;

    @Option(names = "--shard-tokens", defaultValue = "268435456", paramLabel = "N",
        description = "Tokens per shard file (default: 2^28).")
    long shardTokens;

    @Option(names = "--separator", paramLabel = "ID|none",
        description = "Token id appended after each document (default: the tokenizer's end-of-text token, if it has one).")
    String separator;

    @Option(names = "--replace-invalid", description = "Read bytes that are not UTF-8 as U+FFFD (default: refuse the file, naming the first one's offset).")
    boolean replaceInvalid;

    /** 'bytes', a tokenizer.json or its directory as given; a directory without one: the tokenizer of what it records. */
    static String tokenizerOf(String arg) {
      if ("bytes".equals(arg)) return arg;
      java.nio.file.Path p = java.nio.file.Path.of(arg);
      if (!java.nio.file.Files.isDirectory(p) || dev.weft.models.hf.TokenizerFiles.holdsTokenizer(p)) return arg;
      return dev.weft.eval.ModelSource.tokenizerDir(p).map(java.nio.file.Path::toString).orElse(arg);
    }

    @Override
    public Integer call() {
      if (shardTokens < 1) throw new SpecException("--shard-tokens", shardTokens + " must be at least 1");
      dev.weft.launch.UserPaths.writableWhenMade(out, "--out"); // a file there, or no way to make it, before any input is read
      ChatEncoder.TrainOn on = trainOn();
      LengthPolicy length = LengthPolicy.of(maxLength, truncation);
      try (Tokenizer t = Tokenizer.open(tokenizerOf(tokenizer))) {
        int sep = separator(t);
        PrepareBar bar = new PrepareBar(System.out, ConsoleProgress.onTerminal());
        ShardIndex ix = Prepare.run(new Prepare.Request(t, inputs, out, format, field, shardTokens, sep, replaceInvalid, on, length), bar);
        bar.finish();
        if ("preference".equalsIgnoreCase(format)) System.out.printf("%s: %,d pairs for DPO (data.source: preference:%s)%n", out, ix.documents() / 2, out);
        System.out.printf("%s: %,d documents, %,d tokens (%s, vocabulary %,d) in %d shard(s)%n", out, ix.documents(),
            ix.tokens(), ix.dtype(), ix.vocabSize(), ix.shards().size());
      }
      return 0;
    }

    private ChatEncoder.TrainOn trainOn() {
      return switch (trainOn) {
        case "assistant" -> ChatEncoder.TrainOn.ASSISTANT;
        case "last" -> ChatEncoder.TrainOn.LAST;
        case "all" -> ChatEncoder.TrainOn.ALL;
        default -> throw new SpecException("--train-on", "'" + trainOn + "' is not assistant, last or all");
      };
    }

    /** Chat data ends each conversation with the template's own end-of-turn tokens: no separator unless asked. */
    private int separator(Tokenizer t) {
      if (separator == null) return "chat".equalsIgnoreCase(format) ? -1 : t.separator().orElse(-1);
      if ("none".equals(separator)) return -1;
      try {
        int id = Integer.parseInt(separator);
        if (id >= 0 && id < t.vocabSize()) return id;
      } catch (NumberFormatException ignored) {
        // reported below
      }
      throw new SpecException("--separator", "'" + separator + "' is not a token id below " + t.vocabSize() + " or 'none'");
    }
  }
}
